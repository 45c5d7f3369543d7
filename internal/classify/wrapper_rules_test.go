package classify_test

import (
	"testing"
)

// The rules the blind sets da- to dh- asked for (round 3, session 10), each
// on lines written from the format it reads; every value is made up.

// A serverless handler that caught its engine's failure still starts its
// job loop and answers every job with the stored error: the loop's banner
// is no readiness, and the engine's failure is the launch's death.
func TestJobLoopAnsweringAStartupErrorIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `{"requestId": null, "message": "CUDA check passed: 2 GPU(s) available", "level": "INFO"}
{"requestId": null, "message": "Failed to initialize vLLM engine: 403 Forbidden for url https://example.invalid/model/config.json", "level": "ERROR"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": null, "message": "Jobs in queue: 1", "level": "INFO"}
{"requestId": "job-0001", "message": "Started.", "level": "INFO"}
{"requestId": null, "message": "Returning startup error to user: Failed to initialize vLLM engine: 403 Forbidden", "level": "ERROR"}
{"requestId": "job-0001", "message": "Finished.", "level": "INFO"}`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want no readiness: the job loop only returns the startup error", r.Seq)
	}
	var fatal int
	for _, a := range alarms {
		if a.Fatal {
			fatal++
			if a.HeadlineSeq != 2 {
				t.Errorf("fatal alarm %+v, want it headed by the engine's failure (line 2)", a)
			}
		}
	}
	if fatal != 1 {
		t.Errorf("%d fatal alarms in %+v, want the engine's failure", fatal, alarms)
	}

	// The same job loop after an engine that was built is ready.
	st, alarms = feedSettledState("", `{"requestId": null, "message": "Engine built in 41.2 s", "level": "INFO"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": "job-0002", "message": "Started.", "level": "INFO"}
{"requestId": "job-0002", "message": "Finished.", "level": "INFO"}`)
	if st.Summary().Ready == nil || len(alarms) != 0 {
		t.Errorf("ready=%v alarms=%+v, want ready without alarms", st.Summary().Ready, alarms)
	}
}

// A Java model server that closes its listeners is being stopped: the
// interrupted worker threads' stacks after it are teardown, and a served
// launch stays ready.
func TestJavaModelServerStopIsTeardown(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031-02-03T04:05:00,100 [INFO ] main org.pytorch.serve.ModelServer - Model server started.
2031-02-03T04:05:09,200 [INFO ] W-9000-acme_2.1 TS_METRICS - WorkerLoadTime.Milliseconds:9100.0|#WorkerName:W-9000-acme_2.1,Level:Host|#hostname:box-4,timestamp:1927170309
2031-02-03T04:07:00,300 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend response time: 12
2031-02-03T04:30:00,400 [INFO ] epollEventLoopGroup-2-1 org.pytorch.serve.ModelServer - Inference model server stopped.
2031-02-03T04:30:00,401 [INFO ] epollEventLoopGroup-2-2 org.pytorch.serve.ModelServer - Management model server stopped.
2031-02-03T04:30:00,700 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend worker monitoring thread interrupted or backend worker process died., responseTimeout:60sec
java.lang.InterruptedException: null
	at java.base/java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1700) ~[?:?]
	at org.pytorch.serve.wlm.WorkerThread.run(WorkerThread.java:190) [model-server.jar:?]
	at java.base/java.lang.Thread.run(Thread.java:833) [?:?]
2031-02-03T04:30:00,702 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - W-9000-acme_2.1 State change WORKER_MODEL_LOADED -> WORKER_STOPPED`)
	if st.Summary().Ready == nil {
		t.Error("no readiness, want the worker's load metric (line 2)")
	}
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("fatal alarm %+v after the listeners were stopped, want teardown", a)
		}
	}

	// The same stack with no stop before it is the worker's death.
	_, alarms = feedSettledState("", `2031-02-03T04:05:00,100 [INFO ] main org.pytorch.serve.ModelServer - Model server started.
2031-02-03T04:05:09,200 [INFO ] W-9000-acme_2.1 TS_METRICS - WorkerLoadTime.Milliseconds:9100.0|#WorkerName:W-9000-acme_2.1,Level:Host|#hostname:box-4,timestamp:1927170309
2031-02-03T04:30:00,700 [ERROR] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend worker error
org.pytorch.serve.wlm.WorkerInitializationException: Backend worker did not respond in given time
	at org.pytorch.serve.wlm.WorkerThread.run(WorkerThread.java:242) [model-server.jar:?]
	at java.base/java.lang.Thread.run(Thread.java:833) [?:?]`)
	if len(alarms) == 0 {
		t.Error("no alarm for a worker that failed with no stop before it")
	}
}
