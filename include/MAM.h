/* MAM.h -- MaM's public API (Proteo, Codes/MaM), implemented by Ductile.
 *
 * A program written against MaM's umbrella header compiles unchanged
 * against this one and links with -lductile (or runs with libductile.so
 * preloaded by tools/ductile-run).  The calls are MaM's; the reconfiguration
 * is Ductile's engine: MAM_Checkpoint is a control point, the registered
 * data moves as Ductile's registered items (constant data in the background
 * under MAM_CHECK_COMPLETION), and the user function runs in a
 * reconfiguration hook, on every source and target, with a communicator over
 * both.  docs/mam.md lists every call with its status and what differs. */
#ifndef MAM_H
#define MAM_H

#include "MAM_Constants.h"
#include "MAM_Manager.h"
#include "MAM_Configuration.h"
#include "MAM_Times_retrieve.h"

#endif
