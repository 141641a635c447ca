package expressions

import "testing"

func TestConditionStringRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a = :n", "a = :n"},
		{"a=:n AND b<>:s", "a = :n AND b <> :s"},
		{"a = :n or b = :s and c = :n", "a = :n OR b = :s AND c = :n"},
		{"(a = :n or b = :s) and c = :n", "(a = :n OR b = :s) AND c = :n"},
		{"a = :n and (b = :s and c = :n)", "a = :n AND (b = :s AND c = :n)"},
		{"not not a = :n", "NOT NOT a = :n"},
		{"NOT (a = :n AND b = :n)", "NOT (a = :n AND b = :n)"},
		{"a.b[1].#s between :n and :n10", "a.b[1].#s BETWEEN :n AND :n10"},
		{"a IN (:n,:s,  :one)", "a IN (:n, :s, :one)"},
		{"attribute_exists(#s) AND size(a)>=:n", "attribute_exists(#s) AND size(a) >= :n"},
		{"begins_with ( a , :s )", "begins_with(a, :s)"},
		{"(a = :n)", "a = :n"},
		{"((a = :n) AND (b = :n)) OR c = :n", "a = :n AND b = :n OR c = :n"},
		{"a[0][1] < :n", "a[0][1] < :n"},
	}
	for _, tt := range tests {
		c := mustCondition(t, tt.in)
		if got := c.String(); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again := mustCondition(t, c.String())
		if got := again.String(); got != tt.want {
			t.Errorf("String(String(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUpdateStringRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SET a = :n", "SET a = :n"},
		{"set a=:n,b=b+:one remove c, d[2] add e :one delete f :ss", "SET a = :n, b = b + :one REMOVE c, d[2] ADD e :one DELETE f :ss"},
		{"REMOVE x SET y = list_append(if_not_exists(y, :l), :l)", "REMOVE x SET y = list_append(if_not_exists(y, :l), :l)"},
		{"SET #a = #b - :n", "SET #a = #b - :n"},
		// Parentheses around a value, a term or a function argument (ElectroDB
		// sends the first two) parse to the same tree as without them.
		{"SET #a = (if_not_exists(#a, :n) + :one)", "SET #a = if_not_exists(#a, :n) + :one"},
		{"SET #a = (#a - :n)", "SET #a = #a - :n"},
		{"SET a = ( ( b ) + ( :n ) ), c = (:n)", "SET a = b + :n, c = :n"},
		{"SET a = ((b - :n))", "SET a = b - :n"},
		{"SET l = list_append((if_not_exists(l, :l)), (:l))", "SET l = list_append(if_not_exists(l, :l), :l)"},
		{"SET a=(b)-(:n)", "SET a = b - :n"},
		{"SET\ta\n=\r\n( b\t+\t:n )", "SET a = b + :n"},
	}
	for _, tt := range tests {
		u := mustUpdate(t, tt.in)
		if got := u.String(); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := mustUpdate(t, u.String()).String(); got != tt.want {
			t.Errorf("String(String(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestProjectionString(t *testing.T) {
	c, err := compileKind(t, kindProjection, "a,b.c , #s[3].d")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Projection.String(), "a, b.c, #s[3].d"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
