//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// ioctl calls ioctl(2) on f with a pointer argument, without putting f in
// blocking mode as f.Fd would.
func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// openPTY opens a pseudo-terminal pair, closed at the end of the test, with
// output processing (OPOST, which turns "\n" into "\r\n") turned off on the
// slave so that what is read from the master is exactly what was written to
// the slave. It skips the test where there are no pseudo-terminals.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Skipf("cannot unlock the pseudo-terminal: TIOCSPTLCK: %v", err)
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Skipf("cannot number the pseudo-terminal: TIOCGPTN: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal's slave: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	var tio syscall.Termios
	if err := ioctl(slave, syscall.TCGETS, unsafe.Pointer(&tio)); err != nil {
		t.Fatalf("TCGETS: %v", err)
	}
	tio.Oflag &^= syscall.OPOST
	tio.Lflag &^= syscall.ECHO
	if err := ioctl(slave, syscall.TCSETS, unsafe.Pointer(&tio)); err != nil {
		t.Fatalf("TCSETS: %v", err)
	}
	if err := ioctl(slave, syscall.TCGETS, unsafe.Pointer(&tio)); err != nil || tio.Oflag&syscall.OPOST != 0 {
		t.Fatalf("OPOST still on (%v)", err)
	}
	return master, slave
}

// ptyEnd is written to the slave after a command, to know where its output ends.
const ptyEnd = "<<end of the hone pty test output>>"

// runPTY runs the command line with a pseudo-terminal as its standard output
// and returns the exit code, what reached the terminal, and standard error.
func runPTY(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	master, slave := openPTY(t)
	if !isTerminal(slave) {
		t.Fatal("isTerminal is false for a pseudo-terminal")
	}
	if err := master.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatalf("SetReadDeadline on the master: %v", err)
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var b []byte
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b = append(b, buf[:n]...)
			if bytes.Contains(b, []byte(ptyEnd)) {
				done <- result{b, nil}
				return
			}
			if err != nil {
				done <- result{b, err}
				return
			}
		}
	}()
	var errOut bytes.Buffer
	code := Execute(context.Background(), args, strings.NewReader(""), slave, &errOut)
	if _, err := slave.Write([]byte(ptyEnd)); err != nil {
		t.Fatalf("write to the slave: %v", err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("read from the master: %v; read %q", r.err, r.b)
	}
	out, _, _ := bytes.Cut(r.b, []byte(ptyEnd))
	return code, string(out), errOut.String()
}

// TestCommandsEscapeTesterTextOnATerminal runs the commands that print what
// testers wrote with a pseudo-terminal as standard output: no escape
// sequence, carriage return, other control character or bidi override may
// reach it raw, and each must show escaped.
func TestCommandsEscapeTesterTextOnATerminal(t *testing.T) {
	openPTY(t) // skips where there are none
	dir := t.TempDir()
	session := seedHostile(t, dir)
	base := []string{"--data-dir", dir, "--log-level", "error"}
	for _, tt := range []struct {
		name  string
		args  []string
		want  []string
		check func(t *testing.T, what, out string)
	}{
		{"export csv", []string{"export", "--session", session},
			[]string{`"ok\u001b[2J\u000d\u202egnp.exe"`, `hi\u001b]52;c;cHduZWQ=\u0007 \u009b2J there`,
				`warmer\u001b[1A\u001b[2K\u000dall good\u2069`}, nil},
		{"export csv to -", []string{"export", "--session", session, "--output", "-"},
			[]string{`"ok\u001b[2J\u000d\u202egnp.exe"`}, nil},
		{"export json", []string{"export", "--session", session, "--format", "json"},
			[]string{`"ok\u001b[2J\r\u202egnp.exe"`, `"meg\u001b]0;pwned\u0007"`, `"v1\u001b[31m"`, `all good\u2069"`},
			checkExportDoc},
		{"sessions", []string{"sessions"},
			[]string{session, "meg ]0;pwned", "v1 [31m", `v2\u2066\u202e`}, nil},
		{"llm calls", []string{"llm", "calls"},
			[]string{"okcall", "errcall", `ok [2J \u202egnp.exe`, "error: boom [2K fine", "gpt ]0;x → gpt ]0;x -2", "conversation conv [H"}, nil},
		{"llm calls --json", []string{"llm", "calls", "--json"},
			[]string{`"raw_content":"ok\u001b[2J\r\u202egnp.exe"`, `"error":"boom\u001b[2K\rfine"`, `"finish_reason":"stop\u0007"`},
			checkLLMJSON},
		{"metrics session", []string{"metrics", "session", session},
			[]string{"Session " + session + `, prompt version v1\u001b[31m, 1 turns`}, nil},
		{"metrics regressions", []string{"metrics", "regressions"},
			[]string{`v1\u001b[31m → v2\u2066\u202e`}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runPTY(t, append(base, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q, terminal %q", code, errOut, out)
			}
			assertTerminalSafe(t, "what reached the terminal", out)
			for _, raw := range []string{"\x1b", "\a", "\r", "\u009b", "\u202e", "\u2066", "\u2069"} {
				if strings.Contains(out, raw) {
					t.Errorf("%q reached the terminal raw:\n%q", raw, out)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("the terminal shows no %q:\n%s", want, out)
				}
			}
			if tt.check != nil {
				tt.check(t, "what reached the terminal", out)
			}
		})
	}
}

// TestTermOutOnATerminal checks that termOut escapes a terminal, flushing
// runes written in pieces whole.
func TestTermOutOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	w := termOut(slave)
	tw, ok := w.(*terminalWriter)
	if !ok {
		t.Fatalf("termOut(pseudo-terminal) = %T, want *terminalWriter", w)
	}
	in := []byte("日\x1b[2J\r😀\u202e\xff\n")
	for i := range in {
		if _, err := tw.Write(in[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := TerminalText(string(in))
	if err := master.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 0, len(want))
	buf := make([]byte, 256)
	for len(got) < len(want) {
		n, err := master.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read %q: %v", got, err)
		}
	}
	if string(got) != want {
		t.Errorf("the terminal got %q, want %q", got, want)
	}
}
