/* exp for the compiled loops of sdpkern._hkcore.
 *
 * Their loops over points compute one exponential per point and dimension, and libm's exp is a
 * scalar call: the rest of the loop vectorises, exp does not. Where the C library has a vector
 * exp (glibc's libmvec on x86-64; setup.py defines SDPKERN_VECTOR_EXP and links it when it finds
 * the library), exp is declared with GCC's SIMD clones, so those loops call the vector exp, two
 * points per call at the x86-64 baseline, accurate to a few ulp. Elsewhere exp is libm's.
 */
#include <math.h>
#if defined(SDPKERN_VECTOR_EXP) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((simd("notinbranch"))) double exp(double);
#endif
