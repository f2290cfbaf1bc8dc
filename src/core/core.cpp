// Includes the header-only parts of the core layer (event queue, RNG, time), so that they are compiled
// with the layer's library even where no other file of the layer includes them.
#include "core/event_queue.h"
#include "core/rng.h"
#include "core/time.h"
