package web_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// crashingLog is an SGLang launch that loads its weights and then dies of
// a CUDA out-of-memory error in the scheduler.
const crashingLog = `[2026-11-29 10:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', tp_size=1, mem_fraction_static=0.7, cuda_graph_max_bs=64, enable_exception_logging=True)
[2026-11-29 10:00:02] Init torch distributed begin.
[2026-11-29 10:00:05] Load weight begin. avail mem=78.50 GB
Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]
Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:20<00:00,  5.0s/it]
[2026-11-29 10:00:40] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB
[2026-11-29 10:00:41] Capture cuda graph begin. This can take up to several minutes.
[2026-11-29 10:01:30] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2311, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)
  File "/sgl/python/sglang/srt/model_executor/cuda_graph_runner.py", line 280, in capture
    out = self.capture_one_batch_size(bs, forward)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 0 has a total capacity of 79.15 GiB
`

// healthyLog is an SGLang launch that becomes ready.
const healthyLog = `[2026-11-29 11:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', tp_size=1, mem_fraction_static=0.6, cuda_graph_max_bs=32)
[2026-11-29 11:00:05] Load weight begin. avail mem=78.50 GB
[2026-11-29 11:00:38] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB
[2026-11-29 11:00:39] Capture cuda graph begin. This can take up to several minutes.
[2026-11-29 11:01:10] Capture cuda graph end. Time elapsed: 31.00 s
[2026-11-29 11:01:12] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)
[2026-11-29 11:01:20] The server is fired up and ready to roll!
`

// falseAlarmLog is an SGLang launch that becomes ready, with a traceback
// from an optional probe on the way: a false alarm the classifier raises
// (under these rules) and a person dismisses.
const falseAlarmLog = `[2026-11-29 11:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', tp_size=1)
[2026-11-29 11:00:01] Load weight begin. avail mem=78.50 GB
[2026-11-29 11:00:02] Exception in optional kernel probe: Traceback (most recent call last):
  File "/sgl/python/sglang/srt/layers/probe.py", line 12, in probe
    import flashinfer_fused_probe
RuntimeError: probe kernel unavailable on this GPU (sm_90), code 17
[2026-11-29 11:00:38] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB
[2026-11-29 11:01:20] The server is fired up and ready to roll!
`

// page GETs an HTML page and parses it.
func (b *testBundle) page(path string, wantStatus int) *goquery.Document {
	b.t.Helper()
	r := b.do("GET", path, "", nil)
	if r.status != wantStatus {
		b.t.Fatalf("GET %s: status %d, want %d: %s", path, r.status, wantStatus, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		b.t.Fatalf("GET %s: content type %q, want HTML", path, ct)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(r.body))
	if err != nil {
		b.t.Fatal(err)
	}
	return doc
}

// testid selects elements by their data-testid.
func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
