package blocklist

import "testing"

// TestList: items across several blocks come back in order and in place,
// and no block is moved once made.
func TestList(t *testing.T) {
	var l List[int]
	const n = 3*blockSize + 5
	for i := range n {
		l.Append(i * 7)
	}
	first := l.At(0)
	for i := range n {
		l.Append(0) // growing further must not move earlier items
		if got := *l.At(i); got != i*7 {
			t.Fatalf("At(%d) = %d, want %d", i, got, i*7)
		}
	}
	if l.Len() != 2*n {
		t.Fatalf("Len() = %d, want %d", l.Len(), 2*n)
	}
	*l.At(1) = -1
	if first != l.At(0) || *l.At(1) != -1 {
		t.Fatal("an item moved, or At does not give it in place")
	}
}

// TestSparse: nothing is made while every value is zero; once one is not,
// earlier items read zero and later ones what was set.
func TestSparse(t *testing.T) {
	var s Sparse[uint32]
	for i := range blockSize + 3 {
		s.Set(i, 0)
	}
	if s.Made() || s.At(5) != 0 {
		t.Fatalf("zeros made blocks (%v) or read %d", s.Made(), s.At(5))
	}
	const at = 2*blockSize + 1
	s.Set(at, 9)
	s.Set(at+1, 0)
	s.Set(at+blockSize, 4)
	if !s.Made() {
		t.Fatal("a value that is not zero made no block")
	}
	for i, want := range map[int]uint32{0: 0, blockSize + 2: 0, at: 9, at + 1: 0, at + blockSize: 4} {
		if got := s.At(i); got != want {
			t.Errorf("At(%d) = %d, want %d", i, got, want)
		}
	}
}
