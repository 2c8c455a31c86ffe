#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program with a `main` of its own: SwiftPM gives every executable
/// one, so the fuzz targets call this instead of using libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
