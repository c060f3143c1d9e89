package runtime

import (
	"encoding/binary"
	"io"
	"strings"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/util/vfsutil"
	"github.com/ncruces/go-sqlite3/vfs"
	"github.com/ncruces/wbt"
)

// The VFS of an episode connection's main database. Like go-sqlite3's mvcc
// VFS its file is a persistent tree of byte ranges (ncruces/wbt: a copy
// shares every page it did not change with the tree it came from), but a
// file belongs to one connection and the host may take its tree, and give
// it another, while the connection holds no lock. That is what lets an
// episode give its connection back between steps and keep its state as a
// tree (park.go): the initial state's pages shared, its own written pages
// apart, a few KiB where a connection is a few hundred.
//
// A file is used by one connection, and only by the goroutine using that
// connection (the pool hands connections over under a mutex), so it needs
// no lock of its own: SQLite's journal gives its transactions atomicity.

// epVFSName is the VFS's registered name.
const epVFSName = "wasmenv-ep"

func init() { vfs.Register(epVFSName, epVFS{}) }

// tree is a database image: byte ranges by offset.
type tree = *wbt.Tree[int64, string]

// epFiles are the files made but not yet opened, by name; opening one
// takes it out (one connection per file).
var epFiles = struct {
	sync.Mutex
	m map[string]*epFile
}{m: map[string]*epFile{}}

// newEpFile makes the file a connection opens as name, holding t.
func newEpFile(name string, t tree) *epFile {
	f := &epFile{data: t}
	epFiles.Lock()
	epFiles.m[name] = f
	epFiles.Unlock()
	return f
}

// dropEpFile forgets a file that was never opened (the open failed).
func dropEpFile(name string) {
	epFiles.Lock()
	delete(epFiles.m, name)
	epFiles.Unlock()
}

type epVFS struct{}

func (epVFS) Open(name string, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	// Temporary files (sorts, temp tables, statement journals) in memory.
	if name == "" || flags&vfs.OPEN_DELETEONCLOSE != 0 {
		return &vfsutil.SliceFile{}, flags | vfs.OPEN_MEMORY, nil
	}
	// OPEN_MEMORY: SQLite keeps its journals in memory and asks for no
	// other file.
	if flags&vfs.OPEN_MAIN_DB == 0 {
		return nil, flags, sqlite3.CANTOPEN
	}
	name = strings.TrimPrefix(name, "/")
	epFiles.Lock()
	f := epFiles.m[name]
	delete(epFiles.m, name)
	epFiles.Unlock()
	if f == nil {
		return nil, flags, sqlite3.CANTOPEN
	}
	return f, flags | vfs.OPEN_MEMORY, nil
}

func (epVFS) Delete(name string, dirSync bool) error {
	return sqlite3.IOERR_DELETE_NOENT
}

func (epVFS) Access(name string, flag vfs.AccessFlag) (bool, error) {
	return false, nil
}

func (epVFS) FullPathname(name string) (string, error) {
	return name, nil
}

// epFile is a database file over a tree.
type epFile struct {
	data tree
	lock vfs.LockLevel
}

var _ vfs.FileLockState = &epFile{}

func (f *epFile) Close() error {
	f.data, f.lock = nil, vfs.LOCK_NONE
	return nil
}

func (f *epFile) ReadAt(b []byte, off int64) (int, error) {
	n := readTree(f.data, b, off)
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (f *epFile) WriteAt(b []byte, off int64) (int, error) {
	f.data = writeTree(f.data, off, string(b))
	return len(b), nil
}

func (f *epFile) Size() (int64, error) { return treeSize(f.data), nil }

func (f *epFile) Truncate(size int64) error {
	t := f.data
	for t != nil && t.Key() >= size {
		t = t.Left()
	}
	for k := range t.AscendCeil(size) {
		t = t.Delete(k)
	}
	for k, v := range t.DescendFloor(size - 1) { // a range across size: cut it
		if k+int64(len(v)) > size {
			t = t.Put(k, v[:size-k])
		}
		break
	}
	f.data = t
	return nil
}

func (f *epFile) Lock(l vfs.LockLevel) error {
	f.lock = max(f.lock, l)
	return nil
}

func (f *epFile) Unlock(l vfs.LockLevel) error {
	f.lock = min(f.lock, l)
	return nil
}

func (f *epFile) CheckReservedLock() (bool, error) { return f.lock >= vfs.LOCK_RESERVED, nil }
func (f *epFile) LockState() vfs.LockLevel         { return f.lock }
func (*epFile) Sync(vfs.SyncFlag) error            { return nil }
func (*epFile) SectorSize() int                    { return 0 }

func (*epFile) DeviceCharacteristics() vfs.DeviceCharacteristic {
	return vfs.IOCAP_ATOMIC | vfs.IOCAP_SEQUENTIAL | vfs.IOCAP_SAFE_APPEND |
		vfs.IOCAP_POWERSAFE_OVERWRITE | vfs.IOCAP_SUBPAGE_READ
}

// readTree copies t's bytes from off into b (zeros where t has a hole) and
// returns how many bytes up to t's end it filled.
func readTree(t tree, b []byte, off int64) (n int) {
	for k, v := range t.AscendFloor(off) {
		if i := k - off; i >= 0 {
			if i >= int64(len(b)) {
				break
			}
			if i > int64(n) {
				clear(b[n:i])
			}
			n = int(i) + copy(b[i:], v)
		} else if -i < int64(len(v)) {
			n = copy(b, v[-i:])
		}
		if n >= len(b) {
			break
		}
	}
	return n
}

// writeTree returns t with b at off: the ranges it overlaps are cut.
func writeTree(t tree, off int64, b string) tree {
	end := off + int64(len(b))
	for k, v := range t.AscendFloor(off) { // ranges the old tree: t changes below
		if k >= end {
			break
		}
		kend := k + int64(len(v))
		if k < off {
			if kend <= off {
				continue
			}
			t = t.Put(k, v[:off-k])
		} else {
			t = t.Delete(k)
		}
		if kend > end {
			t = t.Put(end, v[end-k:])
		}
	}
	return t.Put(off, b)
}

// treeSize is the size of the file t is.
func treeSize(t tree) int64 {
	if t == nil {
		return 0
	}
	m := t.Max()
	return m.Key() + int64(len(m.Value()))
}

// The header fields of a database file SQLite's pager compares to learn
// whether the file changed since it last held a lock (its file change
// counter), and the one that keeps the header's page count valid.
const (
	hdrChangeCounter = 24
	hdrVersionValid  = 92
	hdrSize          = 100
)

// changeCounter is the file change counter of the image t.
func changeCounter(t tree) uint32 {
	var b [4]byte
	if readTree(t, b[:], hdrChangeCounter) < 4 {
		return 0
	}
	return binary.BigEndian.Uint32(b[:])
}

// stamped returns t with its file change counter (and the version-valid-for
// number beside it, which must equal it for the header's page count to
// count) set to n. SQLite sees a file whose counter changed as changed and
// drops its page cache: a connection given another tree must not serve
// pages of the one it had. An image too small to have a header is left as
// it is (its pager caches nothing).
func stamped(t tree, n uint32) tree {
	if treeSize(t) < hdrSize {
		return t
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	t = writeTree(t, hdrChangeCounter, string(b[:]))
	return writeTree(t, hdrVersionValid, string(b[:]))
}
