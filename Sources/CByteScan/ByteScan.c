// ByteScan is header-only (its function is inline); SwiftPM wants a source file in a C target.
#include "ByteScan.h"
