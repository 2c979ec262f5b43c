// Two threads write O_DIRECT 4 KiB blocks into holes of one file: each
// write allocates (ext4_map_blocks with create), under the inode's
// i_data_sem for write, while the other maps its own.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int fd; static long n;
static void *w(void *arg) {
  long id = (long)arg; void *buf; posix_memalign(&buf, 4096, 4096); memset(buf, 1, 4096);
  for (long i = 0; i < n; i++) pwrite(fd, buf, 4096, (i * 2 + id) * 8192);
  return 0;
}
int main(int c, char **v) {
  n = atol(v[2]); fd = open(v[1], O_RDWR | O_CREAT | O_DIRECT, 0644);
  pthread_t t[2]; for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0); return 0;
}
