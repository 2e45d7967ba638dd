// fixbot's observer inside a go test binary (go 1.19): the go side of fixbot's observer channel
// (fixbot/observe/golang.py). fixbot writes this file per run, its package clause made the
// external test package of each folder it is added to (or the package of the folder's own
// TestMain, folded in below), and adds it to every package of the check through `go test
// -overlay` (`GOFLAGS=-overlay=<file> -vet=off -count=1`), so the test binary go builds holds
// it: TestMain below runs the tests.
//
// TestMain opens a file of its own in the records folder fixbot writes into this file per run
// (no variable names it: go runs the binary through fixbot's -exec program, which gives it the
// check's own environment, fixbot/observe/goexec.py), in the folder (O_EXCL, 0600), wraps each test `m` holds (its unexported `tests`, through
// reflect and unsafe) so that each test's end is written there, one line a record,
// `mac<TAB>json`, in fixbot.observe.stream's wire format, where mac is the lowercase hex of
// HMAC-SHA256 under the run's key of `<file name>\t<line's index from 0>\t<json>` (the key,
// 32 bytes fixbot made for the run, is written into this file per run as two arrays whose xor
// it is, never into the environment nor the records: the records file, which the binary's own
// code can read back through its descriptor, teaches it no key; the index and the file name
// keep a line from being replayed elsewhere):
//
//	{"k": "start", "runner": "go"}                               the binary's TestMain began
//	{"k": "r", "id": "<package>::<Test>", "w": "call", "o": outcome}     a test ended (from its
//	                          cleanup, after its subtests: t.Failed(), t.Skipped(); a panic
//	                          recovered is streamed failed and raised again)
//	{"k": "end", "status": code, "runner": "go"}                 m.Run() returned `code`
//
// and exits with m.Run()'s code. The end is streamed from inside m.Run, as it finishes: go 1.19's
// `M.Run` calls its `deps.SetPanicOnExit0(false)` last (go test passes -test.paniconexit0), and
// the observer puts a wrapper of the deps in `m` (where its method set is the testing package's
// `testDeps`, go 1.19's; otherwise the end is streamed as m.Run returns, and a folded TestMain
// is not observed). A folder whose test files define their own TestMain gets its TestMain
// renamed `fixbotMain` (fixbot overlays that file too, `fixbot.observe.golang`) and this file
// without its own `fixbotMain`: the observer then runs theirs, which calls m.Run (the end
// streamed inside it) and exits as it will. A binary that ends before TestMain (an init()
// that prints test2json's lines and exits) writes nothing; one that ends inside a test writes
// no end. Each record is one write(2) of the whole line.
package FIXBOT_PACKAGE

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

type fixbotMarker struct{}

// the run's key: the xor of the two (fixbot writes them per run)
var fixbotKeyA = [32]byte{FIXBOT_KEY_A}
var fixbotKeyB = [32]byte{FIXBOT_KEY_B}

// the run's records folder (fixbot writes it per run)
const fixbotRecords = FIXBOT_RECORDS

// go 1.19's testing.corpusEntry (an alias of this struct) and testing.testDeps
type fixbotCorpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []interface{}
	Generation int
	IsSeed     bool
}

type fixbotTestDeps interface {
	ImportPath() string
	MatchString(pat, str string) (bool, error)
	SetPanicOnExit0(bool)
	StartCPUProfile(io.Writer) error
	StopCPUProfile()
	StartTestLog(io.Writer)
	StopTestLog() error
	WriteProfileTo(string, io.Writer, int) error
	CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []fixbotCorpusEntry, []reflect.Type, string, string) error
	RunFuzzWorker(func(fixbotCorpusEntry) error) error
	ReadCorpus(string, []reflect.Type) ([]fixbotCorpusEntry, error)
	CheckCorpus([]interface{}, []reflect.Type) error
	ResetCoverage()
	SnapshotCoverage()
}

// the deps of `m` with the end streamed as M.Run finishes (its last SetPanicOnExit0(false))
type fixbotDeps struct {
	fixbotTestDeps
	ended func()
}

func (d fixbotDeps) SetPanicOnExit0(on bool) {
	d.fixbotTestDeps.SetPanicOnExit0(on)
	if !on {
		d.ended()
	}
}

func fixbotOpen() (*os.File, string) {
	folder := fixbotRecords
	for i := 0; i < 100; i++ {
		base := strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i) + ".records"
		f, err := os.OpenFile(folder+"/"+base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0600)
		if err == nil {
			return f, base
		}
		if !os.IsExist(err) {
			return nil, ""
		}
	}
	return nil, ""
}

// fixbotSender writes each record to `out` (file `base`), its line's MAC under the run's key
func fixbotSender(out *os.File, base string) func(string) {
	key := make([]byte, len(fixbotKeyA))
	for i := range key {
		key[i] = fixbotKeyA[i] ^ fixbotKeyB[i]
	}
	var lock sync.Mutex
	index := 0
	return func(body string) {
		if out == nil {
			return
		}
		line := "{" + body + "}"
		lock.Lock()
		defer lock.Unlock()
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(base + "\t" + strconv.Itoa(index) + "\t" + line))
		index++
		out.Write([]byte(hex.EncodeToString(mac.Sum(nil)) + "\t" + line + "\n"))
	}
}

// fixbotWrap puts the wrapper of `m`'s deps in place: whether it could
func fixbotWrap(m *testing.M, ended func()) bool {
	field := reflect.ValueOf(m).Elem().FieldByName("deps")
	wrapper := reflect.TypeOf(fixbotDeps{})
	if !field.IsValid() || field.Kind() != reflect.Interface || !wrapper.Implements(field.Type()) {
		return false
	}
	deps := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
	inner, ok := deps.Interface().(fixbotTestDeps)
	if !ok {
		return false
	}
	deps.Set(reflect.ValueOf(fixbotDeps{inner, ended}))
	return true
}

// fixbotEnd streams the end where the deps' wrapper did not (once)
var fixbotEnd = func() {}

// fixbotObserve wraps each test of `m` and its deps (`fixbotEnd` set)
func fixbotObserve(m *testing.M, folded bool) {
	out, base := fixbotOpen()
	send := fixbotSender(out, base)
	field := reflect.ValueOf(m).Elem().FieldByName("tests")
	if out == nil || !field.IsValid() || field.Type() != reflect.TypeOf([]testing.InternalTest{}) {
		return
	}
	var once sync.Once
	end := func() {
		once.Do(func() {
			code := reflect.ValueOf(m).Elem().FieldByName("exitCode")
			if code.IsValid() && code.Kind() == reflect.Int {
				send(`"k":"end","status":` + strconv.Itoa(int(code.Int())) + `,"runner":"go"`)
			}
		})
	}
	if !fixbotWrap(m, end) && folded {
		return // their TestMain may exit before anything streams the end
	}
	fixbotEnd = end
	pkg := strings.TrimSuffix(reflect.TypeOf(fixbotMarker{}).PkgPath(), "_test")
	tests := (*[]testing.InternalTest)(unsafe.Pointer(field.UnsafeAddr()))
	send(`"k":"start","runner":"go"`)
	for i := range *tests {
		id := strconv.QuoteToASCII(pkg + "::" + (*tests)[i].Name)
		run := (*tests)[i].F
		(*tests)[i].F = func(t *testing.T) {
			t.Cleanup(func() {
				outcome := "passed"
				if t.Failed() {
					outcome = "failed"
				} else if t.Skipped() {
					outcome = "skipped"
				}
				send(`"k":"r","id":` + id + `,"w":"call","o":"` + outcome + `"`)
			})
			defer func() {
				if r := recover(); r != nil {
					send(`"k":"r","id":` + id + `,"w":"call","o":"failed"`)
					panic(r)
				}
			}()
			run(t)
		}
	}
}

func TestMain(m *testing.M) {
	fixbotObserve(m, FIXBOT_FOLDED)
	fixbotMain(m)
	fixbotEnd() // their TestMain returned (go 1.15+: the binary exits with m's code)
}

// FIXBOT_OWN_MAIN: fixbot's own, where the folder's tests define no TestMain
func fixbotMain(m *testing.M) {
	code := m.Run()
	fixbotEnd()
	os.Exit(code)
}
