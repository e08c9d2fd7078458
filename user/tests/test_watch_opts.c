// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ib_async_watch option parsing and line formatting. */
#include <string.h>

#include <infiniband/verbs.h>

#include "../tools/watch.h"
#include "../tools/watch_follow.h"
#include "tap.h"

static FILE *devnull;

static int parse(struct watch_opts *o, int argc, char **argv)
{
	return watch_parse_args(argc, argv, o, devnull);
}

#define ARGV(...) (char *[]){ "ib_async_watch", __VA_ARGS__, NULL }
#define ARGC(...) (int)(sizeof((char *[]){ "x", __VA_ARGS__ }) / sizeof(char *))

static void test_types(void)
{
	static const struct { const char *s; uint32_t v; } good[] = {
		{ "PORT_ERR", 10 }, { "IBV_EVENT_PORT_ERR", 10 },
		{ "ibv_event_port_err", 10 }, { "port_err", 10 },
		{ "Gid_Change", 18 }, { "CQ_ERR", 0 }, { "WQ_FATAL", 19 },
		{ "device_speed_change", 20 }, { "3", 3 }, { "0x10", 16 }, { "65536", 65536 },
	};
	static const char *const bad[] = { "", "PORT", "IBV_EVENT_", "bogus",
		"-1", " 3", "3x", "4294967296", "IBV_EVENT_PORT_ERRX" };
	uint32_t t;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		OK(!watch_parse_type(good[i].s, &t) && t == good[i].v,
		   "type \"%s\" -> %u", good[i].s, good[i].v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		OK(watch_parse_type(bad[i], &t), "type \"%s\" rejected", bad[i]);
	OK(!strcmp(watch_type_name(10), "IBV_EVENT_PORT_ERR") &&
	   !strcmp(watch_type_name(20), "IBV_EVENT_DEVICE_SPEED_CHANGE") &&
	   !watch_type_name(21), "type names, NULL past the last");
	OK(!strcmp(watch_type_name(IB_ASYNC_EV_OVERFLOW), "OVERFLOW") &&
	   !watch_type_name(IB_ASYNC_EV_OVERFLOW + 1),
	   "ib_async's own types: OVERFLOW, NULL for others");
	/* the table has no hole, and its names parse back to their values */
	for (uint32_t v = 0; v <= IB_ASYNC_EV_DEVICE_SPEED_CHANGE; v++) {
		const char *name = watch_type_name(v);

		OK(name && !watch_parse_type(name, &t) && t == v,
		   "type %u: name %s parses back", v, name ? name : "(null)");
	}
}

static void test_args(void)
{
	struct watch_opts o;

	OK(!parse(&o, ARGC("-d", "rxe0", "--device", "mlx5_0", "--json", "-n",
			   "5", "--timeout", "1.5", "-q", "64", "-t", "port_err",
			   "--type", "IBV_EVENT_GID_CHANGE"),
		  ARGV("-d", "rxe0", "--device", "mlx5_0", "--json", "-n", "5",
		       "--timeout", "1.5", "-q", "64", "-t", "port_err",
		       "--type", "IBV_EVENT_GID_CHANGE")) &&
	   o.ndevices == 2 && !strcmp(o.devices[1], "mlx5_0") && o.json &&
	   o.count == 5 && o.timeout_ms == 1500 && o.queue_len == 64 &&
	   o.ntypes == 2 && o.types[0] == 10 && o.types[1] == 18,
	   "all options parsed");
	OK(watch_type_selected(&o, 18) && !watch_type_selected(&o, 9) &&
	   watch_type_selected(&o, IB_ASYNC_EV_OVERFLOW),
	   "filter: selected types and overflow pass");
	watch_opts_free(&o);

	OK(!parse(&o, 1, ARGV(NULL)) && !o.ndevices && !o.count &&
	   o.timeout_ms == -1 && !o.json && watch_type_selected(&o, 9),
	   "defaults: all devices and types, no limits");
	watch_opts_free(&o);
	OK(!parse(&o, ARGC("--timeout", "0.0001"), ARGV("--timeout", "0.0001")) &&
	   o.timeout_ms == 1, "timeout rounds up to whole ms");
	watch_opts_free(&o);
	OK(!parse(&o, ARGC("--journal", "--metrics", "/x/ib.prom"),
		  ARGV("--journal", "--metrics", "/x/ib.prom")) && o.journal &&
	   o.metrics && !strcmp(o.metrics, "/x/ib.prom"),
	   "--journal and --metrics FILE parsed");
	watch_opts_free(&o);
	OK(!parse(&o, 1, ARGV(NULL)) && !o.journal && !o.metrics,
	   "default: neither journal nor metrics");
	watch_opts_free(&o);

#define BAD(...) do { \
	OK(parse(&o, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__)), \
	   "rejected: %s", #__VA_ARGS__); \
	watch_opts_free(&o); \
} while (0)
	BAD("-n", "0");
	BAD("-n", "-1");
	BAD("-n", "x");
	BAD("-q", "0");
	BAD("-q", "4294967296");
	BAD("--timeout", "abc");
	BAD("--timeout", "-1");
	BAD("--timeout", "inf");
	BAD("-t", "nope");
	BAD("--port", "x");
	BAD("--port", "-1");
	BAD("-p", "4294967296");
	BAD("--coalesce", "1");
	BAD("--metrics");
	BAD("--metrics", "");
	BAD("--journal", "x");
	BAD("extra");
	BAD("--bogus");
}

static void test_channel_opts(void)
{
	char *many[2 * (WATCH_MAX_FILTERS + 1) + 2] = { "ib_async_watch" };
	char nums[WATCH_MAX_FILTERS + 1][12];
	struct watch_opts o;
	uint64_t mask;
	uint32_t bad = 0;
	int argc = 1;

	OK(!parse(&o, ARGC("--port", "2", "-p", "0", "--port", "2",
			   "--coalesce"),
		  ARGV("--port", "2", "-p", "0", "--port", "2", "--coalesce")) &&
	   o.nports == 2 && o.ports[0] == 2 && o.ports[1] == 0 && o.coalesce,
	   "--port 2 -p 0 --port 2 --coalesce: ports 2, 0 (once each)");
	OK(watch_needs_channel(&o), "--port/--coalesce need a channel");
	OK(!watch_type_mask(&o, &mask, &bad) && mask == 0,
	   "no -t: mask 0 (every type)");
	watch_opts_free(&o);

	OK(!parse(&o, ARGC("-t", "port_err", "-t", "0x10000", "-t", "20"),
		  ARGV("-t", "port_err", "-t", "0x10000", "-t", "20")) &&
	   !watch_needs_channel(&o) && !o.coalesce,
	   "-t alone: no channel needed");
	OK(!watch_type_mask(&o, &mask, &bad) &&
	   mask == ((1ULL << 10) | (1ULL << 20)),
	   "mask: PORT_ERR and DEVICE_SPEED_CHANGE, OVERFLOW adds nothing");
	watch_opts_free(&o);
	OK(!parse(&o, ARGC("-t", "9", "-t", "21"), ARGV("-t", "9", "-t", "21")) &&
	   watch_type_mask(&o, &mask, &bad) == -1 && bad == 21,
	   "-t 21: no subscription can name it");
	watch_opts_free(&o);

	for (int i = 0; i <= WATCH_MAX_FILTERS; i++) {
		snprintf(nums[i], sizeof(nums[i]), "%d", i);
		many[argc++] = "--port";
		many[argc++] = nums[i];
	}
	many[argc] = NULL;
	OK(parse(&o, argc, many), "%d distinct ports: too many",
	   WATCH_MAX_FILTERS + 1);
	watch_opts_free(&o);
	many[argc - 2] = NULL;
	OK(!parse(&o, argc - 2, many) && o.nports == WATCH_MAX_FILTERS,
	   "%d ports: fine", WATCH_MAX_FILTERS);
	watch_opts_free(&o);
}

static void test_format(void)
{
	/* "now" is 10 s (monotonic) after the record, 2001-09-09T01:46:40Z */
	struct watch_clock now = { .mono = { 110, 0 }, .real = { 1000000000, 0 } };
	struct ib_async_event port = {
		.element = 1, .seq = 7, .timestamp_ns = 100123456789ULL,
		.count = 1, .event_type = 10, .port_num = 1,
		.obj_type = IB_ASYNC_OBJ_PORT,
	};
	struct ib_async_event ovf = {
		.seq = 8, .timestamp_ns = 100500000000ULL, .count = 17,
		.event_type = IB_ASYNC_EV_OVERFLOW, .obj_type = IB_ASYNC_OBJ_NONE,
	};
	struct ib_async_event qp = {
		.element = 0x1234, .seq = 9, .timestamp_ns = 100000000000ULL,
		.count = 1, .event_type = 1, .port_num = 1, .obj_handle = 3,
		.obj_type = IB_ASYNC_OBJ_QP,
	};
	char buf[512];

	watch_format(buf, sizeof(buf), "rxe0", &port, &now, false);
	OK(!strcmp(buf, "100.123456789 2001-09-09T01:46:30.123456Z rxe0 port 1 "
		   "IBV_EVENT_PORT_ERR (port error) seq 7\n"), "text line: %s", buf);
	watch_format(buf, sizeof(buf), "rxe0", &ovf, &now, false);
	OK(!strcmp(buf, "100.500000000 2001-09-09T01:46:30.500000Z rxe0 "
		   "OVERFLOW 17 events lost seq 8-24\n"), "overflow line: %s", buf);
	watch_format(buf, sizeof(buf), "rxe0", &qp, &now, false);
	OK(strstr(buf, " rxe0 qp handle 3 user_handle 0x1234 IBV_EVENT_QP_FATAL "
		       "(local work queue catastrophic error) seq 9\n") != NULL,
	   "affiliated line: %s", buf);
	watch_format(buf, sizeof(buf), "a\"b\\c", &port, &now, true);
	OK(!strcmp(buf, "{\"timestamp_ns\":100123456789,\"time\":"
		   "\"2001-09-09T01:46:30.123456Z\",\"device\":\"a\\\"b\\\\c\","
		   "\"seq\":7,\"type\":\"IBV_EVENT_PORT_ERR\",\"type_num\":10,"
		   "\"desc\":\"port error\",\"obj\":\"port\",\"port\":1,"
		   "\"handle\":0,\"element\":1,\"count\":1}\n"),
	   "JSON line, device name escaped: %s", buf);
	watch_format(buf, sizeof(buf), "rxe0", &ovf, &now, true);
	OK(strstr(buf, "\"type\":\"OVERFLOW\",\"type_num\":65536,\"obj\":\"none\"") &&
	   strstr(buf, "\"count\":17}"), "JSON overflow: %s", buf);
	OK(watch_format(buf, 20, "rxe0", &port, &now, false) == -1,
	   "too small a buffer: -1, not a cut line");
}

/* Records of an event channel: the node's line, then cookie and counts. */
static void test_format_chan(void)
{
	struct watch_clock now = { .mono = { 110, 0 }, .real = { 1000000000, 0 } };
	struct ib_async_chan_event one = {
		.event = { .element = 2, .seq = 3, .timestamp_ns = 100123456789ULL,
			   .count = 1, .event_type = 10, .port_num = 2,
			   .obj_type = IB_ASYNC_OBJ_PORT },
		.cookie = 2, .occurrences = 1,
		.last_timestamp_ns = 100123456789ULL,
	};
	struct ib_async_chan_event many = one, ovf = {
		.event = { .seq = 4, .timestamp_ns = 100500000000ULL,
			   .count = 5, .event_type = IB_ASYNC_EV_OVERFLOW,
			   .obj_type = IB_ASYNC_OBJ_NONE },
	};
	char buf[512];

	many.occurrences = 40;
	many.last_timestamp_ns = 100900000001ULL;
	watch_format_chan(buf, sizeof(buf), "evsrc0", &one, &now, false);
	OK(!strcmp(buf, "100.123456789 2001-09-09T01:46:30.123456Z evsrc0 "
		   "port 2 IBV_EVENT_PORT_ERR (port error) seq 3 cookie 2\n"),
	   "channel text line: cookie after seq: %s", buf);
	watch_format_chan(buf, sizeof(buf), "evsrc0", &many, &now, false);
	OK(strstr(buf, " seq 3 cookie 2 occurrences 40 last 100.900000001\n") != NULL,
	   "coalesced: occurrences and the last one's time: %s", buf);
	watch_format_chan(buf, sizeof(buf), "evsrc0", &ovf, &now, false);
	OK(!strcmp(buf, "100.500000000 2001-09-09T01:46:30.500000Z evsrc0 "
		   "OVERFLOW 5 events lost seq 4-8\n"),
	   "channel overflow line as the node's: %s", buf);
	watch_format_chan(buf, sizeof(buf), "evsrc0", &many, &now, true);
	OK(!strcmp(buf, "{\"timestamp_ns\":100123456789,\"time\":"
		   "\"2001-09-09T01:46:30.123456Z\",\"device\":\"evsrc0\","
		   "\"seq\":3,\"type\":\"IBV_EVENT_PORT_ERR\",\"type_num\":10,"
		   "\"desc\":\"port error\",\"obj\":\"port\",\"port\":2,"
		   "\"handle\":0,\"element\":2,\"count\":1,\"cookie\":2,"
		   "\"occurrences\":40,\"last_timestamp_ns\":100900000001}\n"),
	   "channel JSON line: cookie, occurrences, last_timestamp_ns: %s", buf);
	watch_format_chan(buf, sizeof(buf), "evsrc0", &ovf, &now, true);
	OK(strstr(buf, "\"count\":5,\"cookie\":0,\"occurrences\":0,"
		       "\"last_timestamp_ns\":0}\n") != NULL,
	   "channel JSON overflow: %s", buf);
}

/* --follow's device lines, text and JSON. */
static void test_format_device(void)
{
	struct watch_clock now = { .mono = { 110, 0 }, .real = { 1000000000, 0 } };
	char buf[512];

	watch_format_device(buf, sizeof(buf), "rxe1", WATCH_DEV_ADDED,
			    "ib_async1", 0, &now, false);
	OK(!strcmp(buf, "110.000000000 2001-09-09T01:46:40.000000Z rxe1 "
		   "DEVICE_ADDED node ib_async1\n"), "added line: %s", buf);
	watch_format_device(buf, sizeof(buf), "rxefoo", WATCH_DEV_RENAMED,
			    "rxe1", 0, &now, false);
	OK(strstr(buf, "Z rxefoo DEVICE_RENAMED from rxe1\n") != NULL,
	   "renamed line: %s", buf);
	watch_format_device(buf, sizeof(buf), "rxefoo", WATCH_DEV_REMOVED,
			    NULL, 0, &now, false);
	OK(strstr(buf, "Z rxefoo DEVICE_REMOVED\n") != NULL,
	   "removed line: %s", buf);
	watch_format_device(buf, sizeof(buf), "rxe0", WATCH_DEV_NETDEV_ATTACHED,
			    "veth0", 1, &now, false);
	OK(strstr(buf, "Z rxe0 NETDEV_ATTACHED veth0 port 1\n") != NULL,
	   "netdev line, as rdma monitor's: %s", buf);
	watch_format_device(buf, sizeof(buf), "rxefoo", WATCH_DEV_RENAMED,
			    "rxe1", 0, &now, true);
	OK(!strcmp(buf, "{\"timestamp_ns\":110000000000,\"time\":"
		   "\"2001-09-09T01:46:40.000000Z\",\"kind\":\"device\","
		   "\"device\":\"rxefoo\",\"type\":\"DEVICE_RENAMED\","
		   "\"from\":\"rxe1\"}\n"), "JSON renamed: %s", buf);
	watch_format_device(buf, sizeof(buf), "rxe0", WATCH_DEV_NETDEV_DETACHED,
			    "veth0", 1, &now, true);
	OK(strstr(buf, "\"type\":\"NETDEV_DETACHED\",\"netdev\":\"veth0\","
		       "\"port\":1}\n") != NULL, "JSON netdev: %s", buf);
}

/* What the kernel's uevents say to --follow; the rest is ignored. */
static void test_uevent_parse(void)
{
	static const char add[] = "add@/devices/virtual/ib_async/ib_async1\0"
		"ACTION=add\0DEVPATH=/devices/virtual/ib_async/ib_async1\0"
		"SUBSYSTEM=ib_async\0DEVNAME=infiniband/ib_async1\0SEQNUM=7";
	static const char mv[] = "move@/devices/virtual/infiniband/rxefoo\0"
		"ACTION=move\0DEVPATH=/devices/virtual/infiniband/rxefoo\0"
		"SUBSYSTEM=infiniband\0DEVPATH_OLD=/devices/virtual/infiniband/rxe1";
	static const char net[] = "move@/devices/virtual/net/eth1\0"
		"ACTION=move\0DEVPATH=/devices/virtual/net/eth1\0"
		"SUBSYSTEM=net\0DEVPATH_OLD=/devices/virtual/net/eth0";
	struct watch_uevent ev;

	watch_uevent_parse(add, sizeof(add), &ev);
	OK(ev.kind == WATCH_UEVENT_NODE_ADD && !strcmp(ev.name, "ib_async1"),
	   "node add: %d %s", ev.kind, ev.name);
	watch_uevent_parse(mv, sizeof(mv), &ev);
	OK(ev.kind == WATCH_UEVENT_RENAME && !strcmp(ev.name, "rxefoo") &&
	   !strcmp(ev.old, "rxe1"), "rename: %s from %s", ev.name, ev.old);
	watch_uevent_parse(net, sizeof(net), &ev);
	OK(ev.kind == WATCH_UEVENT_OTHER, "a netdev's rename is not ours");
	/* the last field cut: DEVPATH_OLD unterminated, so no rename */
	watch_uevent_parse(mv, sizeof(mv) - 1, &ev);
	OK(ev.kind == WATCH_UEVENT_OTHER, "an unterminated field is ignored");
}

int main(void)
{
	devnull = fopen("/dev/null", "w");
	test_types();
	test_args();
	test_channel_opts();
	test_format();
	test_format_chan();
	test_format_device();
	test_uevent_parse();
	fclose(devnull);
	return tap_done();
}
