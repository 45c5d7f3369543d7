package classify

import (
	"regexp"
	"strings"
)

// ggml's (llama.cpp, Ollama's runners, llamafile, whisper.cpp) abort dump
// after a failed backend call, as ggml_cuda_error and GGML_ABORT print it:
//
//	CUDA error: an illegal memory access was encountered        <- headline (the signature line)
//	  current device: 1, in function ggml_backend_cuda_synchronize at .../ggml-cuda.cu:2626
//	  cudaStreamSynchronize(cuda_ctx->stream())                  (the failed statement)
//	.../ggml-cuda.cu:85: CUDA error                              (GGML_ABORT's own line)
//	/app/libggml-base.so(ggml_print_backtrace+0x21f) [0x7f...]   (backtrace_symbols frames)
//	#3  0x00007f... in ggml_cuda_error(...) () from libggml-cuda.so   (or gdb's, when it attaches)
//
// The backend's name is CUDA, ROCm (HIP builds), MUSA, SYCL or CANN. The
// GGML_ABORT line repeats the backend error without its message; it and the
// frames belong to the event opened by the first line, which keeps its
// headline. A GGML_ASSERT line is followed by the same frames.

// ggmlDump is the stSingle sub-state once a "current device:" line showed
// the event is a ggml backend error.
const ggmlDump = 1

var (
	reGGMLDevice = regexp.MustCompile(`^current device: -?\d+, in function \S+ at `)
	reGGMLAbort  = regexp.MustCompile(`^\S+:\d+: (?:CUDA|ROCm|MUSA|SYCL|CANN|Vulkan|HIP) error$`)
	// backtrace_symbols: "/path/lib.so(+0x15c4b) [0x7f...]" or "bin(func+0x1f)[0x55...]".
	reBtSymbol = regexp.MustCompile(`^\S+\([^()\s]*\+0x[0-9a-f]+\) ?\[0x[0-9a-f]+\]$`)
	// gdb's frames and chatter when ggml_print_backtrace attaches it.
	// boost::stacktrace, as C++ servers' fatal-signal handlers print it
	// (Triton): " 3# TRITONBACKEND_ModelInstanceExecute in /opt/.../lib.so".
	reBoostFrame = regexp.MustCompile(`^\d+# \S.* (?:in \S+|at \S+:\d+)$`)
	reGdbFrame   = regexp.MustCompile(`^#\d+\s+0x[0-9a-f]+ in |^0x[0-9a-f]+ in \S+ \(|^\[New LWP \d+\]$|^\[Inferior \d+ \(process \d+\) detached\]$|^\[Thread debugging using libthread_db enabled\]$|^Using host libthread_db library |^\d+\t\S+: No such file or directory\.$`)
)

// consumeGGML continues a single-line event with ggml's abort dump (body is
// the line after its prefix, t the same trimmed). It reports whether the
// line was taken.
func consumeGGML(ev *event, body, t string) bool {
	switch {
	case indented(body) && reGGMLDevice.MatchString(t):
		ev.Sub = ggmlDump
		return true
	case ev.Sub == ggmlDump && indented(body) && !strings.HasPrefix(t, "File \""):
		return true // the failed statement under "current device:"
	case ev.Sub == ggmlDump && reGGMLAbort.MatchString(t):
		return true
	case isNativeFrame(t):
		return true
	}
	return false
}

// isNativeFrame reports a frame of a native backtrace (backtrace_symbols or
// gdb) printed while a process aborts. A byte test keeps the regexps off
// ordinary lines.
func isNativeFrame(t string) bool {
	if len(t) < 4 {
		return false
	}
	switch c := t[0]; {
	case c >= '0' && c <= '9' && (t[1] == '#' || t[2] == '#'):
		return reBoostFrame.MatchString(t)
	case c == '#' || c == '[' || c == 'U' || (c >= '0' && c <= '9'):
		return reGdbFrame.MatchString(t)
	case strings.Contains(t, "+0x"):
		return reBtSymbol.MatchString(t)
	}
	return false
}
