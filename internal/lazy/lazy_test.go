package lazy

import (
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var word = Regexp{Expr: `^\w+$`}

func TestARegexpIsCompiledOnceOnFirstUseAndMatchesItsExpression(t *testing.T) {
	r := Regexp{Expr: `a(b+)`}
	if r.re != nil {
		t.Fatal("compiled before first use")
	}
	got := r.Get()
	if got.String() != `a(b+)` || got.FindStringSubmatch("xabbb")[1] != "bbb" {
		t.Fatalf("Get compiled %q", got)
	}
	if r.Get() != got {
		t.Fatal("compiled a second time")
	}
	if !word.Get().MatchString("abc") || word.Get().MatchString("a b") {
		t.Fatal("a package-level Regexp does not match as its Expr says")
	}
}

func TestConcurrentFirstUsesShareOneCompiledRegexp(t *testing.T) {
	r := Regexp{Expr: `x+`}
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = r.Get() }()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("two goroutines compiled their own")
		}
	}
}

func TestAnInvalidExpressionPanicsOnFirstUse(t *testing.T) {
	r := Regexp{Expr: `(`}
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic")
		}
	}()
	r.Get()
}
