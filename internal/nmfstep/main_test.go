package nmfstep

import (
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
)

// TestMain runs the tests on the backends make test's pass names.
func TestMain(m *testing.M) { testenv.Main(m) }
