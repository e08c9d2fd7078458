#include "kshim.h"
/* Every tracepoint of ib_async_trace.h becomes an empty function. */
#define TRACE_DEFINE_ENUM(x)
#define TP_PROTO(...)	__VA_ARGS__
#define TP_ARGS(...)	__VA_ARGS__
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(class, name, proto, args) \
	static inline void trace_##name(proto) { }
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	static inline void trace_##name(proto) { }
