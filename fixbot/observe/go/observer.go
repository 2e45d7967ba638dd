// fixbot's observer inside a go test binary (go 1.19): the go side of fixbot's observer channel
// (fixbot/observe/golang.py). fixbot writes this file per run, its package clause made the
// external test package of each folder it is added to, and adds it to every package of the
// check through `go test -overlay` (`GOFLAGS=-overlay=<file>`), so the test binary go builds
// holds it: TestMain below runs the tests.
//
// TestMain reads the records folder and the run's nonce from FIXBOT_GO_OBSERVER
// (`<folder>\t<nonce>`), unsets it, opens a file of its own in the folder (O_EXCL, 0600), wraps
// each test `m` holds (its unexported `tests`, through reflect and unsafe) so that each test's
// end is written there, one line a record, `nonce<TAB>json`, in fixbot.observe.stream's wire
// format:
//
//	{"k": "start", "runner": "go"}                               the binary's TestMain began
//	{"k": "r", "id": "<package>::<Test>", "w": "call", "o": outcome}     a test ended (from its
//	                          cleanup, after its subtests: t.Failed(), t.Skipped(); a panic
//	                          recovered is streamed failed and raised again)
//	{"k": "end", "status": code, "runner": "go"}                 m.Run() returned `code`
//
// then exits with m.Run()'s code. A binary that ends before TestMain (an init() that prints
// test2json's lines and exits) writes nothing; one that ends inside a test writes no end.
// Each record is one write(2) of the whole line.
package FIXBOT_PACKAGE

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

type fixbotMarker struct{}

func fixbotOpen() (*os.File, string) {
	given := os.Getenv("FIXBOT_GO_OBSERVER")
	os.Unsetenv("FIXBOT_GO_OBSERVER")
	folder, nonce, found := strings.Cut(given, "\t")
	if !found || folder == "" || nonce == "" {
		return nil, ""
	}
	for i := 0; i < 100; i++ {
		name := folder + "/" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i) + ".records"
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, nonce
		}
		if !os.IsExist(err) {
			return nil, ""
		}
	}
	return nil, ""
}

func TestMain(m *testing.M) {
	out, nonce := fixbotOpen()
	send := func(body string) {
		if out != nil {
			out.Write([]byte(nonce + "\t{" + body + "}\n"))
		}
	}
	pkg := strings.TrimSuffix(reflect.TypeOf(fixbotMarker{}).PkgPath(), "_test")
	field := reflect.ValueOf(m).Elem().FieldByName("tests")
	if out != nil && field.IsValid() && field.Type() == reflect.TypeOf([]testing.InternalTest{}) {
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
	code := m.Run()
	send(`"k":"end","status":` + strconv.Itoa(code) + `,"runner":"go"`)
	if out != nil {
		out.Close()
	}
	os.Exit(code)
}
