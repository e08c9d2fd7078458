/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every ioctl() of the process counted, libibasync's included: a program
 * that calls iba_ioctls() links lib/ioctls.o, whose ioctl() the
 * library's calls bind to (the executable's symbol comes first). How a
 * test or the benchmark tells which calls made a system call.
 */
#ifndef IBA_IOCTLS_H
#define IBA_IOCTLS_H

/* ioctls.c: the calls made so far */
unsigned long iba_ioctls(void);
/* of them, the CQ_WAITs that let the kernel spin (spin_us not 0) */
unsigned long iba_cq_wait_spins(void);

#endif /* IBA_IOCTLS_H */
