package tokens

// Classed reports whether the pre-tokenizers put r in any class (letter,
// mark, number or space), by the table generated from node.
func Classed(r rune) bool { return classOf(r) != 0 }

// LoadO200k builds o200k_base's ranks table anew.
func LoadO200k() (*ranks, error) { return loadRanks(o200kRanks) }
