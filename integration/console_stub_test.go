package integration

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// stubInsights serves a fixed GET /_ddblocal/insights in the contract's
// shape until the real endpoint lands; everything else goes to h.
// TODO(console): remove once insights is on main.
func stubInsights(h http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_ddblocal/insights" {
			h.ServeHTTP(w, r)
			return
		}
		now := time.Now().Unix()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"table":%q,"throttling":false,"now":%d,"bucketSeconds":10,
 "indexes":[{"index":"","partitions":[{"partition":0,"hashLow":"0x0000000000000000","hashHigh":"0x7fffffffffffffff","items":10,"sizeBytes":300,
   "readUnits":%d,"writeUnits":1,"readThrottles":0,"writeThrottles":0,"series":[{"t":%d,"readUnits":%d,"writeUnits":1,"readThrottles":0,"writeThrottles":0}]}]}],
 "topKeys":{"byUnits":[{"index":"","partitionKey":{"S":"c1"},"sortKey":null,"partition":0,"readUnits":3,"writeUnits":1,"throttles":0}],"byThrottles":[]},
 "collections":[],"amplification":{"itemsRead":5,"itemsReturned":3,"unitsRead":1,"unitsPerReturnedItem":0.33,"scanReadShare":0.5},
 "warnings":[]}`, r.URL.Query().Get("table"), now, n.Add(1), now/10*10, n.Load())
	})
}
