package table

// SetPlain turns s's fast paths off (Service.plain), for the differential
// test in package table_test.
func SetPlain(s *Service) { s.plain = true }
