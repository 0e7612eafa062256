#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What doxygen's own warnings miss in the API reference: it checks the
parameters of some functions only (not those of a function documented by a
brief alone), never those of a callback (a function-pointer member of an
ops table, or a function-pointer typedef), and never enum values. Over
doxygen's XML of the installed headers, every function and every callback
must document each named parameter (@param) and, unless it returns void,
its result (@return or @retval); every enum value must have a description.
Usage: doxygen_complete.py XML_DIR SOURCE_ROOT"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def described(e):
    return any(''.join(e.find(tag).itertext()).strip()
               for tag in ('briefdescription', 'detaileddescription') if e.find(tag) is not None)


def callback_params(args):
    """The parameter names of a callback's argsstring, ')(void *ctx, int n)'."""
    inner = args.strip()
    if not inner.startswith(')(') or not inner.endswith(')'):
        return None
    inner, names, depth, cur = inner[2:-1], [], 0, ''
    for ch in inner + ',':
        if ch == ',' and depth == 0:
            fp = re.search(r'\(\s*\*\s*(\w+)\s*\)', cur)
            words = re.findall(r'\w+', cur)
            if fp:
                names.append(fp.group(1))
            elif len(words) > 1 and words[-1] not in ('void', 'const'):
                names.append(words[-1])
            cur = ''
            continue
        depth += ch == '('
        depth -= ch == ')'
        cur += ch
    return names


def check(md, name, where, params, rtype, problems):
    """Every parameter and a non-void result of md documented."""
    documented = {(n.text or '').strip() for pl in md.iter('parameterlist')
                  if pl.get('kind') == 'param' for n in pl.iter('parametername')}
    for p in params:
        if p not in documented:
            problems.append('%s: %s: parameter %s is not documented' % (where, name, p))
    returns = any(s.get('kind') == 'return' for s in md.iter('simplesect')) or any(
        pl.get('kind') == 'retval' for pl in md.iter('parameterlist'))
    if rtype and rtype[-1] != 'void' and not returns:
        problems.append('%s: %s: return value is not documented' % (where, name))


def main():
    xml_dir, src = sys.argv[1], os.path.join(sys.argv[2], '')
    problems, functions, callbacks = [], 0, 0
    paths = sorted(glob.glob(os.path.join(xml_dir, '*_8h.xml')) +
                   glob.glob(os.path.join(xml_dir, 'struct*.xml')))
    for path in paths:
        for md in ET.parse(path).getroot().iter('memberdef'):
            loc = md.find('location')
            where = '%s:%s' % (loc.get('file').replace(src, ''), loc.get('line'))
            name = md.findtext('name')
            if md.get('kind') == 'enum':
                problems += ['%s: enum value %s is not documented' % (where, v.findtext('name'))
                             for v in md.findall('enumvalue') if not described(v)]
            rtype = ''.join(md.find('type').itertext()) if md.find('type') is not None else ''
            if md.get('kind') in ('variable', 'typedef') and rtype.rstrip().endswith('(*'):
                params = callback_params(md.findtext('argsstring') or '')
                if params is None:
                    continue
                callbacks += 1
                check(md, name, where, params, rtype.rstrip()[:-2].split(), problems)
                continue
            if md.get('kind') != 'function':
                continue
            functions += 1
            params = [p.findtext('declname') for p in md.findall('param') if p.findtext('declname')]
            check(md, name, where, params, rtype.split(), problems)
    if functions == 0:
        problems.append('no function found in %s: was the XML generated?' % xml_dir)
    for p in problems:
        print(p)
    if not problems:
        print('doxygen_complete: %d functions and %d callbacks, every parameter and return '
              'value documented' % (functions, callbacks))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
