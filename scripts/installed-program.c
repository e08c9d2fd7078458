// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A program built against an installed libibasync (make install's tree,
 * or libibasync-dev): the shim's own call, a verbs one and one libibverbs
 * provides, so it needs both libraries' headers and symbols.
 * scripts/install-test.sh and scripts/deb-test.sh build and run it.
 */
#include <stdio.h>
#include <infiniband/ib_async_shim.h>

int main(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list && n > 0) {
		struct ibv_context *ctx = ibv_open_device(list[0]);

		if (ctx) {
			printf("lost %llu\n",
			       (unsigned long long)ibasync_lost_events(ctx));
			ibv_close_device(ctx);
		}
	}
	if (list)
		ibv_free_device_list(list);
	printf("%s\n", ibv_event_type_str(IBV_EVENT_PORT_ACTIVE));
	return 0;
}
