#!/usr/bin/python3
"""Print the folder where `cmake --install` puts the lbsim package for an install prefix.

Debian's interpreter reads /usr/lib/python3/dist-packages (prefix /usr) and
/usr/local/lib/python3.X/dist-packages (prefix /usr/local); any other prefix gets the standard
<prefix>/lib/python3.X/site-packages, which for ~/.local is the user site the interpreter reads.

    install_dir.py PREFIX
"""
import os
import sys
import sysconfig

prefix = os.path.abspath(sys.argv[1])
ver = f"{sys.version_info.major}.{sys.version_info.minor}"
if prefix == "/usr":
    print("/usr/lib/python3/dist-packages")
elif prefix == "/usr/local":
    print(f"/usr/local/lib/python{ver}/dist-packages")
else:
    print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
