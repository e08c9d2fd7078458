// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test helper: send one uevent, as the kernel formats it (each argument
 * after the socket path a NUL-terminated field), to the datagram socket
 * ib_async_watch --follow binds under IBASYNC_TEST_ROOT.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char msg[4096];
	size_t len = 0;
	int fd;

	if (argc < 3 || strlen(argv[1]) >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: %s SOCKET FIELD...\n", argv[0]);
		return 2;
	}
	strcpy(a.sun_path, argv[1]);
	for (int i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (len + n > sizeof(msg))
			return 2;
		memcpy(msg + len, argv[i], n);
		len += n;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || sendto(fd, msg, len, 0, (struct sockaddr *)&a,
			     sizeof(a)) != (ssize_t)len) {
		perror("uevent_send");
		return 1;
	}
	close(fd);
	return 0;
}
