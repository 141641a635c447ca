package expressions

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// cacheCases are requests whose compilations through a Cache must equal
// Compile's, successes and errors alike. Several share expression texts and
// names but not values, so they hit a template built by an earlier one.
func cacheCases() []Input {
	v := func(kv ...any) map[string]attr.Value {
		m := map[string]attr.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(attr.Value)
		}
		return m
	}
	names := map[string]string{"#a": "a", "#s": "status"}
	upd := "SET #a = #a + :one, b = list_append(if_not_exists(b, :l), :l) REMOVE c[1] ADD d :ss DELETE e :ss"
	return []Input{
		{KeyConditionExpression: ptr("pk = :p"), Values: v(":p", attr.String("x"))},
		{KeyConditionExpression: ptr("pk = :p"), Values: v(":p", num("3"))},
		{KeyConditionExpression: ptr("pk = :p"), Values: v(":q", num("3"))},                                      // undefined
		{KeyConditionExpression: ptr("pk = :p"), Values: v(":p", num("3"), ":q", num("4"))},                      // unused value
		{KeyConditionExpression: ptr("pk = :p"), Values: v(":p", num("3")), Names: map[string]string{"#x": "x"}}, // unused name
		{KeyConditionExpression: ptr("pk = :p AND sk BETWEEN :lo AND :hi"), Values: v(":p", attr.String("x"), ":lo", num("1"), ":hi", num("2"))},
		{KeyConditionExpression: ptr("pk = :p AND sk BETWEEN :lo AND :hi"), Values: v(":p", attr.String("x"), ":lo", num("3"), ":hi", num("2"))}, // reversed
		{ConditionExpression: ptr("attribute_type(#a, :t)"), Names: map[string]string{"#a": "a"}, Values: v(":t", attr.String("S"))},
		{ConditionExpression: ptr("attribute_type(#a, :t)"), Names: map[string]string{"#a": "a"}, Values: v(":t", attr.String("STRING"))},
		{ConditionExpression: ptr("attribute_type(#a, :t)"), Names: map[string]string{"#a": "a"}, Values: v(":t", num("1"))},
		{ConditionExpression: ptr("attribute_type(#b, :t)"), Names: map[string]string{"#a": "a"}, Values: v(":t", attr.String("S"))}, // undefined name
		{ConditionExpression: ptr("a < :x"), Values: v(":x", attr.Bool(true))},
		{ConditionExpression: ptr("a < :x"), Values: v(":x", num("1"))},
		{ConditionExpression: ptr("NOT (a < :n OR b.c[2] >= :s) AND size(l) IN (:n, :s)"), Values: v(":n", num("1"), ":s", attr.String("q"))},
		{ConditionExpression: ptr("((a = :n)"), Values: v(":n", num("1"))},  // syntax
		{ConditionExpression: ptr("((a = :n))"), Values: v(":n", num("1"))}, // redundant parentheses
		{ConditionExpression: ptr("size = :n"), Values: v(":n", num("1"))},  // reserved word
		{ConditionExpression: ptr(""), Values: v(":n", num("1"))},
		{UpdateExpression: ptr(upd), Names: map[string]string{"#a": "a"}, Values: v(":one", num("1"), ":l", attr.List(nil), ":ss", attr.StringSet("z"))},
		{UpdateExpression: ptr(upd), Names: map[string]string{"#a": "a"}, Values: v(":one", num("2"), ":l", attr.List([]attr.Value{attr.Null()}), ":ss", attr.StringSet("y"))},
		{UpdateExpression: ptr(upd), Names: map[string]string{"#a": "a"}, Values: v(":one", attr.String("1"), ":l", attr.List(nil), ":ss", attr.StringSet("z"))}, // + on S
		{UpdateExpression: ptr(upd), Names: map[string]string{"#a": "a"}, Values: v(":one", num("1"), ":l", attr.List(nil), ":ss", attr.String("z"))},            // ADD a string
		{UpdateExpression: ptr("SET a = :v"), ConditionExpression: ptr("#s = :old"), Names: names, Values: v(":v", num("1"), ":old", num("0"))},                  // #a unused
		{UpdateExpression: ptr("SET #a = :v"), ConditionExpression: ptr("#s = :old"), Names: names, Values: v(":v", num("1"), ":old", num("0"))},
		{UpdateExpression: ptr("SET #a = :v"), ConditionExpression: ptr("#s = :old"), Names: names, Values: v(":v", num("1"))},
		{UpdateExpression: ptr("SET #a = :v, #a.b = :v"), Names: map[string]string{"#a": "a"}, Values: v(":v", num("1"))}, // overlap
		{KeyConditionExpression: ptr("pk = :p"), FilterExpression: ptr("#s <> :s"), ProjectionExpression: ptr("#a, b.c, l[2]"),
			Names: names, Values: v(":p", attr.String("x"), ":s", attr.String("done"))},
		{KeyConditionExpression: ptr("pk = :p"), FilterExpression: ptr("#s <> :s"), ProjectionExpression: ptr("#a, b.c, l[2]"),
			Names: names, Values: v(":p", attr.String("y"), ":s", attr.Null())},
		{ProjectionExpression: ptr("#a, b.c, l[2]"), Names: map[string]string{"#a": "a"}},
		{ProjectionExpression: ptr("#a, b.c, l[2]"), Names: map[string]string{"#a": "a"}, Values: v(":x", num("1"))}, // unused value
		{ProjectionExpression: ptr("a, a.b")},                            // overlap
		{ProjectionExpression: ptr("a"), AttributesToGet: []string{"a"}}, // mixed
		{AttributesToGet: []string{"a", "b"}},                            // legacy only
		{KeyConditions: map[string]LegacyCondition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{attr.String("x")}}}},
		{Names: map[string]string{"#a": "a"}}, // names without expressions
		{Values: v(":a", num("1"))},           // values without expressions
		{},                                    // nothing at all
		{FilterExpression: ptr("a = :v"), Values: map[string]attr.Value{}}, // empty values
	}
}

// TestCacheMatchesCompile compiles every case through one cache, twice (a
// miss, then a hit), and compares each result with Compile's.
func TestCacheMatchesCompile(t *testing.T) {
	c := NewCache(100)
	for round := range 2 {
		for i, in := range cacheCases() {
			t.Run(fmt.Sprintf("round%d/%d", round, i), func(t *testing.T) {
				want, wantErr := Compile(in)
				got, gotErr := c.Compile(in)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotErr, wantErr) {
					t.Fatalf("error: got %v, want %v", gotErr, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("compiled: got %#v, want %#v", got, want)
				}
			})
		}
	}
	if got, want := c.Len(), 10; got < want {
		t.Errorf("Len: got %d templates, want at least %d", got, want)
	}
}

// TestCacheBindsEachRequest checks that requests sharing a template see their
// own values: binding one must not change another's trees.
func TestCacheBindsEachRequest(t *testing.T) {
	c := NewCache(4)
	in := func(n string) Input {
		return Input{ConditionExpression: ptr("a = :v AND b = :w"), UpdateExpression: ptr("SET c = :v"),
			Values: map[string]attr.Value{":v": num(n), ":w": attr.String("w")}}
	}
	one, err := c.Compile(in("1"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := c.Compile(in("2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    *Compiled
		n    string
		want bool
	}{{one, "1", true}, {one, "2", false}, {two, "2", true}, {two, "1", false}} {
		item := attr.Item{"a": num(tc.n), "b": attr.String("w")}
		if got := tc.c.Condition.Eval(item); got != tc.want {
			t.Errorf("compiled for a = %v, Eval(a = %s): got %v, want %v", tc.c.Condition, tc.n, got, tc.want)
		}
	}
	next, err := one.Update.Apply(attr.Item{})
	if err != nil || !attr.Equal(next["c"], num("1")) {
		t.Errorf("Apply: got %v, %v; want c = 1", next, err)
	}
}

// TestCacheBounded checks the size bound and that eviction keeps results right.
func TestCacheBounded(t *testing.T) {
	c := NewCache(3)
	for i := range 10 {
		src := fmt.Sprintf("a%d = :v", i)
		got, err := c.Compile(Input{FilterExpression: &src, Values: map[string]attr.Value{":v": num("1")}})
		if err != nil || got.Filter.String() != src {
			t.Fatalf("Compile(%q): got %v, %v", src, got.Filter, err)
		}
		if n := c.Len(); n > 3 {
			t.Fatalf("Len after %d texts: got %d, want at most 3", i+1, n)
		}
	}
}

// TestCacheConcurrent compiles from many goroutines through a small cache, so
// that hits, misses and evictions race (run with -race).
func TestCacheConcurrent(t *testing.T) {
	c := NewCache(2)
	var nilCache *Cache
	cases := cacheCases()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				in := cases[(g+i)%len(cases)]
				want, wantErr := nilCache.Compile(in)
				got, gotErr := c.Compile(in)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("case %d: got %v, %v; want %v, %v", (g+i)%len(cases), got, gotErr, want, wantErr)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkCacheCompile is BenchmarkCompile's request through a warm Cache.
func BenchmarkCacheCompile(b *testing.B) {
	in := Input{
		ConditionExpression: strp("attribute_exists(pk) AND n < :max AND contains(tags, :t)"),
		UpdateExpression:    strp("SET n = n + :one, m.x = :v REMOVE m.l[0] ADD tags :s"),
		Values: map[string]attr.Value{":max": attr.Int(100), ":t": attr.String("a"), ":one": attr.Int(1),
			":v": attr.Int(2), ":s": attr.StringSet("d")},
	}
	c := NewCache(16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := c.Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileKeyCondition is a Query's "pk = :p", compiled from scratch.
func BenchmarkCompileKeyCondition(b *testing.B) {
	in := Input{KeyConditionExpression: strp("pk = :p"), Values: map[string]attr.Value{":p": attr.String("target")}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCacheKeyCondition is a Query's "pk = :p" through a warm Cache.
func BenchmarkCacheKeyCondition(b *testing.B) {
	in := Input{KeyConditionExpression: strp("pk = :p"), Values: map[string]attr.Value{":p": attr.String("target")}}
	c := NewCache(16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := c.Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}
