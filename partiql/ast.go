package partiql

import "github.com/ddblocal/ddblocal/attr"

// Statement is one parsed PartiQL statement: *Select, *Insert, *Update,
// *Delete or *Exists. String renders it in canonical form (see string.go).
type Statement interface {
	Pos() int
	String() string
	statement()
}

// Select reads items. Star is SELECT *; otherwise Projection lists the paths.
type Select struct {
	At         int
	Star       bool
	Projection []*Path
	Table      string
	Index      string // "" for the table itself
	Where      Expr   // nil without WHERE
	OrderBy    []Order
}

// Order is one ORDER BY term.
type Order struct {
	Path *Path
	Desc bool
}

// Insert writes one new item.
type Insert struct {
	At    int
	Table string
	Value Expr // a *Tuple, or a parameter holding a map
}

// Update changes one item's attributes.
type Update struct {
	At        int
	Table     string
	Actions   []Action
	Where     Expr
	Returning *Returning
	// FromFirst is the FROM "T" [WHERE ...] SET ... form of UPDATE.
	FromFirst bool
}

// Action is one SET or REMOVE of an UPDATE; Value is nil for REMOVE.
type Action struct {
	Target *Path
	Value  Expr
}

// Delete removes one item.
type Delete struct {
	At        int
	Table     string
	Where     Expr
	Returning *Returning
}

// Returning is a RETURNING clause: ALL or MODIFIED, OLD or NEW.
type Returning struct {
	At       int
	Modified bool
	New      bool
}

// Exists is EXISTS(SELECT ...), a transaction's condition check.
type Exists struct {
	At     int
	Select *Select
}

func (s *Select) Pos() int { return s.At }
func (s *Insert) Pos() int { return s.At }
func (s *Update) Pos() int { return s.At }
func (s *Delete) Pos() int { return s.At }
func (s *Exists) Pos() int { return s.At }

func (*Select) statement() {}
func (*Insert) statement() {}
func (*Update) statement() {}
func (*Delete) statement() {}
func (*Exists) statement() {}

// Expr is an expression node. String renders it in canonical form.
type Expr interface {
	Pos() int
	String() string
}

// Step is one step of a path: a name, or a list index when Index >= 0.
type Step struct {
	Name  string
	Index int
}

// Path is a document path: a top-level name, then names and list indexes.
type Path struct {
	At    int
	Steps []Step
}

// Literal is a scalar written in the statement: a string, a number (V.S
// holds the text as written until planning validates it), a boolean or NULL.
type Literal struct {
	At int
	V  attr.Value
}

// Missing is the MISSING literal.
type Missing struct{ At int }

// Param is the N-th (from 0) '?' of the statement.
type Param struct{ At, N int }

// Tuple is a {'key': value, ...} literal.
type Tuple struct {
	At     int
	Keys   []string
	Values []Expr
}

// List is a [a, b, ...] literal.
type List struct {
	At    int
	Elems []Expr
}

// Bag is a <<a, b, ...>> literal: a DynamoDB set.
type Bag struct {
	At    int
	Elems []Expr
}

// Binary is L Op R: a comparison (= <> != < <= > >=), AND, OR, + or -.
type Binary struct {
	At   int
	Op   string
	L, R Expr
}

// Not is NOT X.
type Not struct {
	At int
	X  Expr
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	At        int
	X, Lo, Hi Expr
	Negated   bool
}

// In is X [NOT] IN [List...].
type In struct {
	At      int
	X       Expr
	List    []Expr
	Negated bool
}

// Is is X IS [NOT] Type, Type one of MISSING, NULL, BOOLEAN, STRING, ...
type Is struct {
	At      int
	X       Expr
	Type    string
	Negated bool
}

// Call is a function call.
type Call struct {
	At   int
	Name string // lower case
	Args []Expr
}

func (e *Path) Pos() int    { return e.At }
func (e *Literal) Pos() int { return e.At }
func (e *Missing) Pos() int { return e.At }
func (e *Param) Pos() int   { return e.At }
func (e *Tuple) Pos() int   { return e.At }
func (e *List) Pos() int    { return e.At }
func (e *Bag) Pos() int     { return e.At }
func (e *Binary) Pos() int  { return e.At }
func (e *Not) Pos() int     { return e.At }
func (e *Between) Pos() int { return e.At }
func (e *In) Pos() int      { return e.At }
func (e *Is) Pos() int      { return e.At }
func (e *Call) Pos() int    { return e.At }
