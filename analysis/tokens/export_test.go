package tokens

// Classed reports whether the pre-tokenizers put r in any class (letter,
// mark, number or space), by the table generated from node.
func Classed(r rune) bool { return classOf(r) != 0 }
