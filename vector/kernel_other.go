//go:build !amd64

package vector

// dot returns q · v with q already widened to float64; len(v) ≥ len(q).
func dot(q []float64, v []float32) float64 { return dotGo(q, v) }

// sqDist returns ‖q − v‖² with q already widened to float64; len(v) ≥ len(q).
func sqDist(q []float64, v []float32) float64 { return sqDistGo(q, v) }
