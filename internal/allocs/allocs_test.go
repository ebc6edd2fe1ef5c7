package allocs

import "testing"

var sink []byte

func TestOnce(t *testing.T) {
	const n = 1 << 20
	got := Once(func() { sink = make([]byte, n) })
	if got < n || got > n+64<<10 {
		t.Errorf("Once(make 1 MiB) = %d bytes, want about %d", got, n)
	}
	if got := Once(func() {}); got > 4<<10 {
		t.Errorf("Once(nothing) = %d bytes, want about 0", got)
	}
}
