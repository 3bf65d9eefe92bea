/*
 * ProcessPrng, for Wine 8.0 only (scripts/check-windows.mjs): Rust's standard
 * library draws its random seeds from bcryptprimitives.dll!ProcessPrng, which
 * every Windows 10 and later has and Wine 8.0 lacks. This stand-in, copied into
 * the Wine prefix's system32, fills the buffer from RtlGenRandom. It is never
 * shipped: the packed binary imports the real DLL of Windows.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
