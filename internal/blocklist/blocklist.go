// Package blocklist holds long lists in blocks of fixed size, so that a
// long stream's items are never copied to grow: a slice grown by append
// holds the old and the new array at once, and copies everything each
// time.
package blocklist

// blockSize is the number of items in one block.
const blockSize = 1 << 12

// List is a list of T in blocks of blockSize; the zero List is empty.
type List[T any] struct {
	blocks [][]T
	n      int
}

// Append adds v at the end.
func (l *List[T]) Append(v T) {
	if l.n%blockSize == 0 {
		l.blocks = append(l.blocks, make([]T, 0, blockSize))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, v)
	l.n++
}

// At is item i (0 ≤ i < Len), in place.
func (l *List[T]) At(i int) *T { return &l.blocks[i/blockSize][i%blockSize] }

// Len is the number of items.
func (l *List[T]) Len() int { return l.n }

// Sparse is a list of T beside a List (item i of one goes with item i of
// the other) whose blocks are made only once a value is not zero, so that
// a list that never holds one pays nothing for it. The zero Sparse is
// all zeros.
type Sparse[T comparable] struct {
	blocks [][]T
}

// Set sets item i, which must not be below the last item set since the
// first that was not zero: a block is made for every index up to i's.
func (s *Sparse[T]) Set(i int, v T) {
	var zero T
	if v == zero && s.blocks == nil {
		return
	}
	for len(s.blocks) <= i/blockSize {
		s.blocks = append(s.blocks, make([]T, blockSize))
	}
	s.blocks[i/blockSize][i%blockSize] = v
}

// At is item i: zero until an item that was not zero was set.
func (s *Sparse[T]) At(i int) T {
	if s.blocks == nil {
		var zero T
		return zero
	}
	return s.blocks[i/blockSize][i%blockSize]
}

// Made reports whether an item that was not zero was ever set.
func (s *Sparse[T]) Made() bool { return s.blocks != nil }
