/* <shmemx.h> alone, as strict C11. */
#include <shmemx.h>

int header_alone_shmemx_h_c(void) {
  shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
  return attr.rank + (int)sizeof(shmemx_uniqueid_t);
}
