// <shmemx.h> alone, as strict C++.
#include <shmemx.h>

int header_alone_shmemx_h_cpp() {
  shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
  return attr.rank + static_cast<int>(sizeof(shmemx_uniqueid_t));
}
