// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test helper: write ib_async records to stdout, one per argument
 * "TYPE:ELEMENT:SEQ:COUNT:PORT:OBJ" (numbers, C syntax), or the raw
 * string "short" for a truncated record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_async.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct ib_async_event ev = { 0 };
		unsigned long long v[6] = { 0 };

		if (!strcmp(argv[i], "short")) {
			if (write(1, "short", 5) != 5)
				return 1;
			continue;
		}
		if (sscanf(argv[i], "%lli:%lli:%lli:%lli:%lli:%lli", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5]) != 6) {
			fprintf(stderr, "mkrec: bad record %s\n", argv[i]);
			return 2;
		}
		ev.event_type = (__u32)v[0];
		ev.element = v[1];
		ev.seq = v[2];
		ev.count = v[3];
		ev.port_num = (__u32)v[4];
		ev.obj_type = (__u32)v[5];
		ev.timestamp_ns = 1000000000ULL + v[2];
		if (write(1, &ev, sizeof(ev)) != sizeof(ev))
			return 1;
	}
	return 0;
}
