// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test helper: write ib_async records to stdout, one per argument
 * "TYPE:ELEMENT:SEQ:COUNT:PORT:OBJ" (numbers, C syntax), or the raw
 * string "short" for a truncated record. With three more fields,
 * ":COOKIE:OCCURRENCES:LAST", an event channel's record (struct
 * ib_async_chan_event, LAST its last timestamp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_async.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct ib_async_chan_event x = { 0 };
		struct ib_async_event *ev = &x.event;
		unsigned long long v[9] = { 0 };
		size_t len;
		int n;

		if (!strcmp(argv[i], "short")) {
			if (write(1, "short", 5) != 5)
				return 1;
			continue;
		}
		n = sscanf(argv[i], "%lli:%lli:%lli:%lli:%lli:%lli:%lli:%lli:%lli",
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
		if (write(1, &x, len) != (ssize_t)len)
			return 1;
	}
	return 0;
}
