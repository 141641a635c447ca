package partiql

import "github.com/ddblocal/ddblocal/attr"

// Target returns the table a statement names and the attributes it fixes
// without reading anything: an INSERT's item, or the top-level name =
// constant conditions of a WHERE. It lets fault injection select
// statements by table and key before they run. A statement that does not
// parse, or whose parameters do not fit it, has no target ("", nil); one
// whose values cannot be worked out has its table only.
func Target(src string, params []attr.Value) (tableName string, item attr.Item) {
	st, n, err := parse(src)
	if err != nil {
		return "", nil
	}
	tableName = tableOf(st)
	if n != len(params) {
		return tableName, nil
	}
	b := &binder{params: params}
	var where Expr
	switch st := st.(type) {
	case *Insert:
		v, err := b.value(st.Value, itemAt)
		if err != nil || v.T != attr.TypeM {
			return tableName, nil
		}
		return tableName, v.M
	case *Select:
		where = st.Where
	case *Update:
		where = st.Where
	case *Delete:
		where = st.Where
	case *Exists:
		where = st.Select.Where
	}
	item = attr.Item{}
	for _, c := range splitAnd(where) {
		bin, ok := c.(*Binary)
		if !ok || bin.Op != "=" {
			continue
		}
		for _, side := range [][2]Expr{{bin.L, bin.R}, {bin.R, bin.L}} {
			name, ok := topName(side[0])
			if !ok || !isConstant(side[1]) {
				continue
			}
			if v, err := b.value(side[1], name); err == nil {
				item[name] = v
			}
		}
	}
	return tableName, item
}
