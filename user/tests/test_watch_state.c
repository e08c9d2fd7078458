// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ib_async_watch --state: its option, and the lines of a state record. */
#include <string.h>

#include <infiniband/verbs.h>

#include "../tools/watch.h"
#include "tap.h"

#define ARGV(...) (char *[]){ "ib_async_watch", __VA_ARGS__, NULL }
#define ARGC(...) (int)(sizeof((char *[]){ "x", __VA_ARGS__ }) / sizeof(char *))

static FILE *devnull;

static void test_opts(void)
{
	struct watch_opts o;

	OK(!watch_parse_args(ARGC("--state"), ARGV("--state"), &o, devnull) &&
	   o.state && watch_needs_channel(&o),
	   "--state: set, and a channel needed");
	watch_opts_free(&o);
	OK(!watch_parse_args(ARGC("--state", "-p", "1", "--json"),
			     ARGV("--state", "-p", "1", "--json"), &o,
			     devnull) &&
	   o.state && o.nports == 1 && o.json,
	   "--state with --port and --json");
	watch_opts_free(&o);
	OK(!watch_parse_args(ARGC("-t", "9"), ARGV("-t", "9"), &o, devnull) &&
	   !o.state && !watch_needs_channel(&o), "no --state: not set");
	watch_opts_free(&o);
	OK(watch_parse_args(ARGC("--state=1"), ARGV("--state=1"), &o,
			    devnull) == -1, "--state takes no argument");
	watch_opts_free(&o);
}

/* Port 1 of rxe, as the kernel reports it in a state record. */
static struct ib_async_chan_state_event port_rec(void)
{
	return (struct ib_async_chan_state_event){
		.rec = {
			.event = {
				.element = 1, .seq = 2,
				.timestamp_ns = 100123456789ULL, .count = 1,
				.event_type = IB_ASYNC_EV_STATE, .port_num = 1,
				.obj_type = IB_ASYNC_OBJ_PORT,
			},
			.cookie = 1, .occurrences = 1,
			.last_timestamp_ns = 100123456789ULL,
		},
		.state = {
			.flags = IB_ASYNC_STATE_LAST, .lid = 0, .sm_lid = 0,
			.gid_valid = 2, .gid_gen = 3, .gid_tbl_len = 1024,
			.port_cap_flags = 0x10000, .active_speed = 32,
			.pkey_tbl_len = 1, .state = IBV_PORT_ACTIVE,
			.phys_state = 5, .active_width = 2, .sm_sl = 0,
			.active_mtu = IBV_MTU_1024, .max_mtu = IBV_MTU_4096,
			.link_layer = IBV_LINK_LAYER_ETHERNET, .lmc = 0,
		},
	};
}

static void test_lines(void)
{
	struct watch_clock now = { .mono = { 110, 0 }, .real = { 1000000000, 0 } };
	struct ib_async_chan_state_event s = port_rec(), dev = port_rec();
	char buf[1024];
	int len;

	len = watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, false);
	OK(len == (int)strlen(buf) &&
	   !strcmp(buf, "100.123456789 2001-09-09T01:46:30.123456Z rxe0 "
		   "port 1 STATE active phys LINK_UP speed EDR width 4X "
		   "lid 0 sm_lid 0 gid_valid 2 gid_gen 3 mtu 1024/4096 "
		   "link Ethernet seq 2 cookie 1 last\n"),
	   "port's text line: state, phys, speed, width, lid, gid, mtu, "
	   "link, seq, cookie, flags: %s", buf);
	len = watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, true);
	OK(len == (int)strlen(buf) &&
	   !strcmp(buf, "{\"timestamp_ns\":100123456789,\"time\":"
		   "\"2001-09-09T01:46:30.123456Z\",\"kind\":\"state\","
		   "\"device\":\"rxe0\",\"seq\":2,\"type\":\"STATE\",\"port\":1,"
		   "\"cookie\":1,\"resync\":false,\"last\":true,"
		   "\"state\":\"active\",\"state_num\":4,"
		   "\"phys_state\":\"LINK_UP\",\"phys_state_num\":5,"
		   "\"speed\":\"EDR\",\"active_speed\":32,\"width\":\"4X\","
		   "\"active_width\":2,\"lid\":0,\"sm_lid\":0,\"sm_sl\":0,"
		   "\"lmc\":0,\"gid_valid\":2,\"gid_gen\":3,"
		   "\"gid_tbl_len\":1024,\"pkey_tbl_len\":1,"
		   "\"port_cap_flags\":65536,\"active_mtu\":1024,"
		   "\"max_mtu\":4096,\"link_layer\":\"Ethernet\"}\n"),
	   "port's JSON line: %s", buf);

	s.state.flags = IB_ASYNC_STATE_RESYNC;
	s.state.state = IBV_PORT_DOWN;
	s.state.phys_state = 3;
	s.state.active_speed = 0x400;
	s.state.active_width = 0;
	s.state.link_layer = IBV_LINK_LAYER_INFINIBAND;
	watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, false);
	OK(strstr(buf, " port 1 STATE down phys DISABLED speed 1024 "
		       "width 0 ") &&
	   strstr(buf, " link InfiniBand seq 2 cookie 1 resync\n"),
	   "resync, down, unknown speed and width as numbers: %s", buf);
	watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, true);
	OK(strstr(buf, "\"resync\":true,\"last\":false,") &&
	   strstr(buf, "\"speed\":null,\"active_speed\":1024,\"width\":null,"),
	   "JSON: resync, unknown names null: %s", buf);

	s.state = (struct ib_async_port_state){
		.flags = IB_ASYNC_STATE_QUERY_FAILED, .error = 19,
	};
	watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, false);
	OK(strstr(buf, " rxe0 port 1 STATE query failed: No such device "
		       "seq 2 cookie 1\n") != NULL,
	   "a port that could not be queried: %s", buf);
	watch_format_state(buf, sizeof(buf), "rxe0", &s, &now, true);
	OK(strstr(buf, ",\"error\":\"No such device\",\"errno\":19}\n") &&
	   !strstr(buf, "\"state\":"), "JSON: its error only: %s", buf);

	dev.rec.event.port_num = 0;
	dev.rec.event.seq = 1;
	dev.state = (struct ib_async_port_state){ .phys_port_cnt = 1 };
	watch_format_state(buf, sizeof(buf), "rxe0", &dev, &now, false);
	OK(strstr(buf, "Z rxe0 device STATE ports 1 seq 1 cookie 1\n") != NULL,
	   "the device's text line: %s", buf);
	watch_format_state(buf, sizeof(buf), "rxe0", &dev, &now, true);
	OK(strstr(buf, "\"seq\":1,\"type\":\"STATE\",\"port\":0,\"cookie\":1,"
		       "\"resync\":false,\"last\":false,\"phys_port_cnt\":1}\n"),
	   "the device's JSON line: %s", buf);
	OK(watch_format_state(buf, 40, "rxe0", &s, &now, false) == -1 &&
	   watch_format_state(buf, 0, "rxe0", &s, &now, true) == -1,
	   "a buffer too small: -1");
}

static void test_names(void)
{
	OK(!strcmp(watch_phys_state_name(5), "LINK_UP") &&
	   !strcmp(watch_phys_state_name(1), "SLEEP") &&
	   !watch_phys_state_name(0) && !watch_phys_state_name(8),
	   "phys states as ibv_devinfo names them, 1-7");
	OK(!strcmp(watch_speed_name(1), "SDR") &&
	   !strcmp(watch_speed_name(256), "XDR") && !watch_speed_name(3),
	   "speeds: the kernel's bits");
	OK(!strcmp(watch_width_name(8), "12X") &&
	   !strcmp(watch_width_name(16), "2X") && !watch_width_name(32),
	   "widths: the kernel's bits");
}

int main(void)
{
	devnull = fopen("/dev/null", "w");
	test_opts();
	test_lines();
	test_names();
	fclose(devnull);
	return tap_done();
}
