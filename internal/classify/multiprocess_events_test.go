package classify_test

import "testing"

// Two servers started from one script print the same process names with
// other pids. When one dies before serving, the other's readiness does not
// undo that death; readiness of the process that failed (or of a process
// with another name) still forgives the errors before it.
func TestSiblingInstanceReadinessDoesNotForgiveItsDeath(t *testing.T) {
	t.Parallel()
	const death = `(EngineCore_DP0 pid=21) ERROR 01-02 03:04:05 [core.py:708] EngineCore failed to start.
(EngineCore_DP0 pid=21) ERROR 01-02 03:04:05 [core.py:708] Traceback (most recent call last):
(EngineCore_DP0 pid=21) ERROR 01-02 03:04:05 [core.py:708]   File "/x/kv_cache_utils.py", line 650, in check_enough_kv_cache_memory
(EngineCore_DP0 pid=21) ERROR 01-02 03:04:05 [core.py:708]     raise ValueError("No available memory for the cache blocks. "
(EngineCore_DP0 pid=21) ERROR 01-02 03:04:05 [core.py:708] ValueError: No available memory for the cache blocks.
(APIServer pid=11) Traceback (most recent call last):
(APIServer pid=11)   File "/x/utils.py", line 729, in wait_for_engine_startup
(APIServer pid=11)     raise RuntimeError("Engine core initialization failed. "
(APIServer pid=11) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
`
	fatal := func(log string) bool {
		run := feedBothWays(t, "vllm", log)
		for _, a := range run.Alarms {
			if a.Fatal {
				return true
			}
		}
		return false
	}
	if !fatal(death + `(APIServer pid=10) INFO:     Application startup complete.`) {
		t.Fatal("a sibling API server's readiness forgave the other's death")
	}
	if fatal(death + `(APIServer pid=11) INFO:     Application startup complete.`) {
		t.Fatal("the failed API server itself became ready: its errors before were survived")
	}
	if fatal(death + `INFO:     Application startup complete.`) {
		t.Fatal("an untagged readiness no longer forgives the errors before it")
	}
}

// torch's NCCL error message spans lines: the error, NCCL's description of
// its result code, "Last error:" and the detail. One event, one alarm.
func TestNCCLResultDescriptionContinuesTheMessage(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `Traceback (most recent call last):
  File "/x/distributed_c10d.py", line 2501, in all_reduce
    work = group.allreduce([tensor], opts)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. 
Last error:
socketStartConnect: Connect to 10.1.2.3<40000> failed : Connection refused`)
	if len(run.Alarms) != 1 || run.Alarms[0].LastSeq != 7 {
		t.Fatalf("alarms %+v, want one NCCL alarm over the whole message", run.Alarms)
	}
	alone := feedBothWays(t, "", `ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.`)
	if len(alone.Alarms) != 1 {
		t.Fatalf("alarms %+v, want the result line alone to stay an alarm", alone.Alarms)
	}
}

// A process that answered a request is a serving process: ERROR lines it
// logged before the request were handled, and its silence after ERROR lines
// at the end of the stream is waiting for requests, not death. Without a
// served request, a trailing ERROR run before readiness is still the
// process's last words.
func TestServingSourceTrailingErrorsAreNotLastWords(t *testing.T) {
	t.Parallel()
	const errLine = `2026-01-02 03:04:05.100 | ERROR    | app.routers.proxy:send_get_request:85 - Connection error: Cannot connect to host upstream:8000 - {}`
	fatal := func(log string) bool {
		run := feedBothWays(t, "", log)
		for _, a := range run.Alarms {
			if a.Fatal {
				return true
			}
		}
		return false
	}
	if fatal(errLine + `
2026-01-02 03:04:06.000 | INFO     | uvicorn.protocols.http.httptools_impl:send:476 - 172.19.0.1:50122 - "GET /api/models HTTP/1.1" 200 - {}
` + errLine) {
		t.Fatal("a serving process's trailing ERROR line was taken for its death")
	}
	if !fatal("INFO starting\n" + errLine) {
		t.Fatal("a trailing ERROR run before readiness is no longer last words")
	}
}

// Ray re-raises a remote worker's exception as "RayTaskError(Cause): ray::..."
// followed by the remote frames and the cause's final line: one traceback,
// headed by the cause, not a frames-only event headed by its header line.
func TestRayRemoteReraiseIsOneTraceback(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `Traceback (most recent call last):
  File "/x/ray_gpu_executor.py", line 412, in _run_workers
    ray_worker_outputs = ray.get(ray_worker_outputs)
  File "/x/ray/_private/worker.py", line 904, in get_objects
    raise value.as_instanceof_cause()
ray.exceptions.RayTaskError(ValueError): ray::RayWorkerWrapper.execute_method() (pid=11, ip=10.0.0.2, actor_id=ab12, repr=<w.W object at 0x7f>)
  File "/x/worker_base.py", line 456, in execute_method
    return executor(*args, **kwargs)
  File "/x/worker.py", line 223, in load_model
    raise ValueError("bad shard")
ValueError: bad shard`)
	if len(run.Alarms) != 1 || run.Alarms[0].FirstSeq != 1 || run.Alarms[0].HeadlineSeq != 11 {
		t.Fatalf("alarms %+v, want one traceback headed by its final ValueError line", run.Alarms)
	}
}
