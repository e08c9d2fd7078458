/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Regression (difftest, seeds 200000, 200002, 200006): ibv_query_pkey()
 * with an index beyond the P_Key table fails with -1 and errno ENOENT in
 * rdma-core (it reads /sys/class/infiniband/DEV/ports/1/pkeys/INDEX, which
 * does not exist); the shim passes the kernel's EINVAL through
 * (IB_ASYNC_IOC_QUERY_PKEY). Same -1, different errno.
 */
#include "difftest_rt.h"

int main(void)
{
	setup();
	query_pkey(0);
	query_pkey(1);
	query_pkey(-1);
	return finish();
}
