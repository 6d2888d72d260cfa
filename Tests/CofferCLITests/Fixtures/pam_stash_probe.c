// pam_stash_probe SERVICE USER [session]: runs PAM's auth (and, with `session`, open_session)
// for USER through SERVICE, then pam_end, and reports how the heap blocks that could hold the
// password (allocated with its length plus one) ended: freed still holding it, or freed zeroed.
// The password comes to the stack from $PAM_AUTHTOK (pam_wrapper's pam_set_items.so).
// malloc and free are interposed here, forwarding to glibc's own, so every library's calls pass.
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *block);

#define TRACKED_MAX 256
static void *tracked[TRACKED_MAX];
static size_t watched_size;  // strlen(password) + 1
static const char *password;
static int freed_holding, freed_zeroed;

void *malloc(size_t size) {
    void *block = __libc_malloc(size);
    if (block != NULL && watched_size != 0 && size == watched_size) {
        for (int i = 0; i < TRACKED_MAX; i++) {
            if (tracked[i] == NULL) {
                tracked[i] = block;
                break;
            }
        }
    }
    return block;
}

void free(void *block) {
    if (block == NULL) return;
    for (int i = 0; i < TRACKED_MAX; i++) {
        if (tracked[i] != block) continue;
        tracked[i] = NULL;
        const unsigned char *bytes = block;
        int zero = 1;
        for (size_t j = 0; j + 1 < watched_size; j++) zero &= bytes[j] == 0;
        if (memcmp(block, password, watched_size) == 0) freed_holding++;
        else if (zero) freed_zeroed++;
        break;
    }
    __libc_free(block);
}

static int answer(int count, const struct pam_message **messages, struct pam_response **responses, void *data) {
    (void)messages, (void)data;
    *responses = calloc((size_t)count, sizeof **responses);
    return *responses == NULL ? PAM_BUF_ERR : PAM_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc < 3 || getenv("PAM_AUTHTOK") == NULL) {
        fprintf(stderr, "usage: PAM_AUTHTOK=... pam_stash_probe SERVICE USER [session]\n");
        return 64;
    }
    password = getenv("PAM_AUTHTOK");
    struct pam_conv conversation = {answer, NULL};
    pam_handle_t *handle = NULL;
    int status = pam_start(argv[1], argv[2], &conversation, &handle);
    if (status != PAM_SUCCESS) return 70;
    watched_size = strlen(password) + 1;
    status = pam_authenticate(handle, 0);
    if (status == PAM_SUCCESS && argc > 3 && strcmp(argv[3], "session") == 0) status = pam_open_session(handle, 0);
    pam_end(handle, status);
    watched_size = 0;
    printf("status=%d freed_holding=%d freed_zeroed=%d\n", status, freed_holding, freed_zeroed);
    return 0;
}
