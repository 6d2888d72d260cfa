// libFuzzer's driver, for a program that keeps its own main (coffer-fuzz). Declaration only:
// scripts/fuzz.sh links the toolchain's libclang_rt.fuzzer_no_main, and only fuzz builds call it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
