# cmake -P: put one artifact into a local Maven repository, the layout Maven
# and Gradle read (`maven { url = uri(".../build/maven") }`):
#
#   <REPO>/<GROUP with . -> />/<ARTIFACT>/<VERSION>/<ARTIFACT>-<VERSION>.jar
#                                                   <ARTIFACT>-<VERSION>.pom
#   each with .md5, .sha1, .sha256 (the digest in hex, as Maven writes them)
#   <REPO>/<GROUP path>/<ARTIFACT>/maven-metadata.xml (this version, latest)
#
#   and, with -DSOURCES=<jar>, <ARTIFACT>-<VERSION>-sources.jar (what IDEs and
#   Gradle show as the sources)
#
# -DREPO= -DGROUP= -DARTIFACT= -DVERSION= -DJAR= -DPOM= [-DSOURCES=]
foreach(v REPO GROUP ARTIFACT VERSION JAR POM)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "CgMavenDeploy: -D${v}= missing")
  endif()
endforeach()
string(REPLACE "." "/" group_path "${GROUP}")
set(base ${REPO}/${group_path}/${ARTIFACT})
set(dir ${base}/${VERSION})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
set(kinds jar pom)
set(src_jar ${JAR})
set(src_pom ${POM})
if(SOURCES)
  list(APPEND kinds sources)
  set(src_sources ${SOURCES})
endif()
foreach(kind ${kinds})
  set(src ${src_${kind}})
  if(kind STREQUAL "sources")
    set(dst ${dir}/${ARTIFACT}-${VERSION}-sources.jar)
  else()
    set(dst ${dir}/${ARTIFACT}-${VERSION}.${kind})
  endif()
  configure_file(${src} ${dst} COPYONLY)
  foreach(algo MD5 SHA1 SHA256)
    file(${algo} ${dst} digest)
    string(TOLOWER ${algo} suffix)
    file(WRITE ${dst}.${suffix} "${digest}")
  endforeach()
endforeach()
string(TIMESTAMP now "%Y%m%d%H%M%S" UTC)
file(WRITE ${base}/maven-metadata.xml
"<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<metadata>
  <groupId>${GROUP}</groupId>
  <artifactId>${ARTIFACT}</artifactId>
  <versioning>
    <latest>${VERSION}</latest>
    <release>${VERSION}</release>
    <versions>
      <version>${VERSION}</version>
    </versions>
    <lastUpdated>${now}</lastUpdated>
  </versioning>
</metadata>
")
