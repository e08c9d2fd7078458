/* nothing: the shim's tracepoint.h made every trace_*() empty */
