package tokens

// ClassOf returns the class bits of r (letter, number, the two word classes,
// space), by the table generated from node; 0 for any other code point.
func ClassOf(r rune) uint8 { return classOf(r) }

// LoadO200k builds o200k_base's ranks table anew.
func LoadO200k() (*ranks, error) { return loadRanks(o200kRanks) }
