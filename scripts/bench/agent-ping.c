/* The floor of a command answered through the agent (make bench-cli): one exec of a small static
 * program and one round trip on the agent's Unix socket, a `ping` (docs/agent.md, section 3:
 * u32be(2) || u8(version 1) || u8(kind 0x01)), whose `ok` reply (kind 0x80) is read whole.
 * Prints "pong" when the agent answered. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int read_exactly(int fd, unsigned char *buffer, size_t count) {
    size_t done = 0;
    while (done < count) {
        ssize_t got = read(fd, buffer + done, count - done);
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return 64;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) return 69;
    const unsigned char ping[] = {0, 0, 0, 2, 1, 0x01};
    if (write(fd, ping, sizeof ping) != (ssize_t)sizeof ping) return 69;
    unsigned char prefix[4], body[4096];
    if (read_exactly(fd, prefix, 4) != 0) return 69;
    uint32_t length = (uint32_t)prefix[0] << 24 | (uint32_t)prefix[1] << 16 | (uint32_t)prefix[2] << 8 | prefix[3];
    if (length < 2 || length > sizeof body || read_exactly(fd, body, length) != 0 || body[1] != 0x80) return 69;
    puts("pong");
    return 0;
}
