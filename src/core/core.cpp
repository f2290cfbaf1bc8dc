// The core layer is header-only today; this translation unit keeps the library target non-empty.
#include "core/event_queue.h"
#include "core/rng.h"
#include "core/time.h"
