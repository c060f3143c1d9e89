//go:build !wasip1

package sdk

// Outside the guest there is no host: tool packages still compile and vet,
// and anything that needs the host says so.

func hostSend(req []byte) (int, error) { return 0, ErrNoHost }
func hostTake(dst []byte)              {}
func hostClock() int64                 { return 0 }
func hostRandom() uint64               { return 0 }
func hostLog(string)                   {}
