/* iosched.h -- the job side of exclusive I/O (CLARISSE's I/O scheduling
 * policy): with DUCTILE_IO_EXCLUSIVE=1 and a controller, a collective I/O
 * call on a file that spans the virtual world first makes sure the job holds
 * ductiled's I/O token.  Rank 0 asks for it and waits for the grant (first
 * come, first served between jobs); the outcome is broadcast on Ductile's
 * private communicator so that every rank of an unmodified binary waits
 * together.  The token is given back when rank 0's I/O phase ends. */
#ifndef DUCTILE_IOSCHED_H
#define DUCTILE_IOSCHED_H

/* 1 when exclusive I/O is on for this job. */
int ductile_iosched_enabled(void);
/* Collective over the private communicator (every rank calls it at the same
 * collective I/O call).  Returns the seconds the job waited for the token. */
double ductile_iosched_gate(void);
/* Rank 0: its I/O phase ended (iomon.c: the close of its last file open on
 * the world, or the phase gap): give the token back, telling ductiled how
 * many seconds after the phase's last I/O call (0 at the close). */
void ductile_iosched_phase_closed(double kept);

#endif
