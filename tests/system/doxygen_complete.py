#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What doxygen's own warnings miss in the API reference: it checks the
parameters of some functions only (not those of a function documented by a
brief alone), and never enum values. Over doxygen's XML of the installed
headers, every function must document each named parameter (@param) and,
unless it returns void, its result (@return or @retval); every enum value
must have a description. Usage: doxygen_complete.py XML_DIR SOURCE_ROOT"""
import glob
import os
import sys
import xml.etree.ElementTree as ET


def described(e):
    return any(''.join(e.find(tag).itertext()).strip()
               for tag in ('briefdescription', 'detaileddescription') if e.find(tag) is not None)


def main():
    xml_dir, src = sys.argv[1], os.path.join(sys.argv[2], '')
    problems, functions = [], 0
    for path in sorted(glob.glob(os.path.join(xml_dir, '*_8h.xml'))):
        for md in ET.parse(path).getroot().iter('memberdef'):
            loc = md.find('location')
            where = '%s:%s' % (loc.get('file').replace(src, ''), loc.get('line'))
            name = md.findtext('name')
            if md.get('kind') == 'enum':
                problems += ['%s: enum value %s is not documented' % (where, v.findtext('name'))
                             for v in md.findall('enumvalue') if not described(v)]
            if md.get('kind') != 'function':
                continue
            functions += 1
            documented = {(n.text or '').strip() for pl in md.iter('parameterlist')
                          if pl.get('kind') == 'param' for n in pl.iter('parametername')}
            for p in md.findall('param'):
                declname = p.findtext('declname')
                if declname and declname not in documented:
                    problems.append('%s: %s: parameter %s is not documented' % (where, name, declname))
            rtype = ''.join(md.find('type').itertext()).split()
            returns = any(s.get('kind') == 'return' for s in md.iter('simplesect')) or any(
                pl.get('kind') == 'retval' for pl in md.iter('parameterlist'))
            if rtype and rtype[-1] != 'void' and not returns:
                problems.append('%s: %s: return value is not documented' % (where, name))
    if functions == 0:
        problems.append('no function found in %s: was the XML generated?' % xml_dir)
    for p in problems:
        print(p)
    if not problems:
        print('doxygen_complete: %d functions, every parameter and return value documented' % functions)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
