// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A program built against an installed libibasync (make install's tree,
 * or libibasync-dev): the shim's own calls (of both its headers), a verbs
 * one and one libibverbs provides, so it needs both libraries' headers
 * and symbols. scripts/install-test.sh and scripts/deb-test.sh build and
 * run it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>

int main(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list && n > 0) {
		struct ibv_context *ctx = ibv_open_device(list[0]);

		if (ctx) {
			struct ibasync_channel *ch;

			printf("lost %llu\n",
			       (unsigned long long)ibasync_lost_events(ctx));
			ch = ibasync_create_channel(ctx, 0);
			printf("event channel: %s\n",
			       ch ? "yes" : strerror(errno));
			if (ch)
				ibasync_destroy_channel(ch);
			ibv_close_device(ctx);
		}
	}
	if (list)
		ibv_free_device_list(list);
	printf("%s\n", ibv_event_type_str(IBV_EVENT_PORT_ACTIVE));
	return 0;
}
