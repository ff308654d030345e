# Turns db/schema.sql into a C string so the store runs the checked-in text itself and no copy of
# it is kept by hand. Run by CMake at build time (cmake -P) with IN and OUT.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
file(WRITE ${OUT} "/* Generated from db/schema.sql by cmake/embed_schema.cmake. Do not edit. */\n"
                  "#include \"store_internal.h\"\n\n"
                  "const char store_schema_sql[] = {${hex}0x00};\n")
