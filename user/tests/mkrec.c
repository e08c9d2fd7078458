// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test helper: write ib_async records to stdout, one per argument
 * "TYPE:ELEMENT:SEQ:COUNT:PORT:OBJ" (numbers, C syntax), or the raw
 * string "short" for a truncated record. With three more fields,
 * ":COOKIE:OCCURRENCES:LAST", an event channel's record (struct
 * ib_async_chan_event, LAST its last timestamp). A channel's record
 * prefixed "+" is a state channel's (struct ib_async_chan_state_event,
 * no state); "S:PORT:SEQ:STATE:FLAGS:COOKIE" is a state record of that
 * size, phys state LINK_UP, speed EDR, width 4X, MTUs 1024/4096, link
 * layer Ethernet, 2 valid GIDs of generation 0 (the device's, port 0:
 * STATE is its number of ports).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_async.h>

static int state_rec(const char *arg)
{
	struct ib_async_chan_state_event s = { 0 };
	unsigned long long v[5];

	if (sscanf(arg, "S:%lli:%lli:%lli:%lli:%lli", &v[0], &v[1], &v[2],
		   &v[3], &v[4]) != 5) {
		fprintf(stderr, "mkrec: bad state record %s\n", arg);
		return 2;
	}
	s.rec.event = (struct ib_async_event){
		.element = v[0], .seq = v[1], .count = 1,
		.timestamp_ns = 1000000000ULL + v[1],
		.event_type = IB_ASYNC_EV_STATE, .port_num = (__u32)v[0],
		.obj_type = IB_ASYNC_OBJ_PORT,
	};
	s.rec.cookie = v[4];
	s.rec.occurrences = 1;
	s.state.flags = (__u32)v[3];
	if (!v[0]) {
		s.state.phys_port_cnt = (__u32)v[2];
	} else {
		s.state.state = (__u8)v[2];
		s.state.phys_state = 5;
		s.state.active_speed = 32;
		s.state.active_width = 2;
		s.state.active_mtu = 3;
		s.state.max_mtu = 5;
		s.state.link_layer = 2;
		s.state.gid_valid = 2;
	}
	return write(1, &s, sizeof(s)) == (ssize_t)sizeof(s) ? 0 : 1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct ib_async_chan_state_event big = { 0 };
		struct ib_async_chan_event x = { 0 };
		struct ib_async_event *ev = &x.event;
		unsigned long long v[9] = { 0 };
		bool pad = argv[i][0] == '+';
		size_t len;
		int n;

		if (argv[i][0] == 'S') {
			n = state_rec(argv[i]);
			if (n)
				return n;
			continue;
		}
		if (!strcmp(argv[i], "short")) {
			if (write(1, "short", 5) != 5)
				return 1;
			continue;
		}
		n = sscanf(argv[i] + pad, "%lli:%lli:%lli:%lli:%lli:%lli:%lli:%lli:%lli",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8]);
		if (n != 6 && n != 9) {
			fprintf(stderr, "mkrec: bad record %s\n", argv[i]);
			return 2;
		}
		ev->event_type = (__u32)v[0];
		ev->element = v[1];
		ev->seq = v[2];
		ev->count = v[3];
		ev->port_num = (__u32)v[4];
		ev->obj_type = (__u32)v[5];
		ev->timestamp_ns = 1000000000ULL + v[2];
		x.cookie = v[6];
		x.occurrences = v[7];
		x.last_timestamp_ns = v[8];
		len = n == 9 ? sizeof(x) : sizeof(*ev);
		if (pad && n == 9) {
			big.rec = x;
			if (write(1, &big, sizeof(big)) != (ssize_t)sizeof(big))
				return 1;
			continue;
		}
		if (write(1, &x, len) != (ssize_t)len)
			return 1;
	}
	return 0;
}
