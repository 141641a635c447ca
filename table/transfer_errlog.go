package table

import "github.com/ddblocal/ddblocal/transfer/s3import"

// An import's error log. The service writes a CloudWatch Logs entry for
// each record an import could not import, and only counts it in the
// import's description (the developer guide's "Import format quotas and
// validation"); ddblocal has no CloudWatch, so the local stand-in is a
// warning in the server's own log, one line per record, naming the import,
// the object, the line and the reason: what the CloudWatch entry tells.

// importErrorsLogged is how many of one import's bad records the log
// names; the rest are counted in ErrorCount only, so a source of bad
// lines cannot flood the server's log.
const importErrorsLogged = 1000

// logImportErrors logs chunk c's bad records of import arn. Records are
// numbered from the chunk's position (its cumulative error count), so a
// resumed import logs neither twice nor past the limit.
func (s *Service) logImportErrors(arn string, c s3import.Chunk) {
	if s.opts.Logger == nil {
		return
	}
	n := c.Pos.Stats.Errors - int64(len(c.Bad)) // the import's errors before this chunk
	for _, e := range c.Bad {
		if n >= importErrorsLogged {
			return
		}
		n++
		s.opts.Logger.Warn("import: record not imported", "import", arn, "object", e.Key, "line", e.Line, "reason", e.Err.Error())
		if n == importErrorsLogged {
			s.opts.Logger.Warn("import: further records not imported are counted in ErrorCount only", "import", arn, "logged", importErrorsLogged)
		}
	}
}
