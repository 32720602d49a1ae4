"""Behaviour the reference does not spell out, as recorded from Logic Apps by a public test suite.

Source: the expression test cases of ScoreUnder/IllogicApps (a Logic Apps simulator whose tests
record what Logic Apps returns; its binary and XML cases are noted there as "unchanged from the
actual expressions which were tested"). Facts only: each case is an expression and its result.
"""

from __future__ import annotations

from tests.conformance.wdl._case import Case, Fails

SIM = "IllogicApps tests"

CASES = [
    Case("@binary('123asdf?a=b%20c%2F')", {"$content-type": "application/octet-stream",
                                           "$content": "MTIzYXNkZj9hPWIlMjBjJTJG"}, f"{SIM}: BinaryTest"),
    Case("@base64ToBinary(base64('test'))", {"$content-type": "application/octet-stream", "$content": "dGVzdA=="},
         f"{SIM}: Base64ToBinaryTest"),
    Case("@json(binary('[1,2,3]'))", [1, 2, 3], f"{SIM}: JsonOfBinaryTest"),
    Case("@{base64ToBinary('test')}", "\ufffd\ufffd-", f"{SIM}: BinaryToStringTest"),
    Case("@setProperty(json('{}'),'v',setProperty(binary('test'),'x',1))",
         {"v": {"$content-type": "application/octet-stream", "$content": "dGVzdA==", "x": 1}},
         f"{SIM}: setProperty on binary"),
    Case("@join(createArray('',null,''),'x')", "xx", f"{SIM}: join with null"),
    Case("@join(createArray('',true,''),'x')", "xTruex", f"{SIM}: join with boolean"),
    Case("@join(createArray('a',createArray('b','c'),'d'),'x')", 'ax["b","c"]xd', f"{SIM}: join with array"),
    Case("@join(createArray(binary('test'), 'x'), '-')", "test-x", f"{SIM}: join with binary"),
    Case("@first('')", "", f"{SIM}: first of empty string"),
    Case("@first(json('[]'))", None, f"{SIM}: first of empty array"),
    Case("@first(null)", Fails("'first'"), f"{SIM}: first of null"),
    Case("@empty(null)", True, f"{SIM}: empty of null"),
    Case("@empty(0)", Fails("'empty'"), f"{SIM}: empty of an integer"),
    Case("@length(json('{}'))", Fails("'length'"), f"{SIM}: length of an object"),
    Case("@replace('xxxxx','x','')", "", f"{SIM}: replace with empty"),
    Case("@replace('abcdef','.','z')", "abcdef", f"{SIM}: replace is not regex"),
    Case("@replace('xxxxx','','y')", Fails("'replace'"), f"{SIM}: replace of an empty string"),
    Case("@split(',abc,def,',',')", ["", "abc", "def", ""], f"{SIM}: split with leading and trailing"),
    Case("@split('abcSPdefSPghi','SP')", ["abc", "def", "ghi"], f"{SIM}: split on a string"),
    Case("@split('abc,def','')", ["abc,def"], f"{SIM}: split on empty"),
    Case("@split('abc1def', 1)", Fails("'split'"), f"{SIM}: split on an integer"),
    Case("@slice('abcdef',-33)", "abcdef", f"{SIM}: slice from end out of bounds"),
    Case("@slice('abcdef',-3,-1)", "de", f"{SIM}: slice from end, end from end"),
    Case("@setProperty(json('{\"a\":1,\"b\":2,\"c\":3,\"d\":4}'),'c',999)", {"a": 1, "b": 2, "d": 4, "c": 999},
         f"{SIM}: setProperty existing key"),
    Case("@{string(setProperty(json('{\"a\":1,\"b\":2,\"c\":3}'),'a',9))}", '{"b":2,"c":3,"a":9}',
         f"{SIM}: setProperty writes the key last"),
    Case("@{true}", "True", f"{SIM}: ConstantsInterpolationTest"),
    Case("@{null}", "", f"{SIM}: ConstantsInterpolationTest"),
    Case("@{-01.0}", "-1", f"{SIM}: NumericDoubleInterpolationTest"),
    Case("@{3.2e-1}", "0.32", f"{SIM}: NumericDoubleInterpolationTest"),
    Case("@+54", 54, f"{SIM}: NumericIntegerParsingTest"),
    Case("@json('{\"abCDef\": 123}').abcdef", 123, f"{SIM}: case insensitive member access"),
    Case("@json('{\"abCDef\": 123}')?['AbcdEF']", 123, f"{SIM}: case insensitive member access"),
    Case("testing @@{'blah'} @{'thing'}", "testing @{'blah'} thing", f"{SIM}: InterpolatedStringWithPassthroughTest"),
    Case("@@{'abc'}@{'def'}@@{'ghi'}j@{'kl'}", "@{'abc'}@{'def'}@@{'ghi'}j@{'kl'}", f"{SIM}: StringAtSignPassthroughTest"),
    Case("@and(false,int('blkadokg'))", False, f"{SIM}: short-circuiting and"),
    Case("@and(int('blkadokg'),false)", Fails("'int' could not parse"), f"{SIM}: short-circuiting and"),
    Case("@or(true,int('blkadokg'))", True, f"{SIM}: short-circuiting or"),
    Case("@if(true,1,int('x'))", 1, f"{SIM}: short-circuiting if"),
    Case("@if(false,int('x'),2)", 2, f"{SIM}: short-circuiting if"),
    Case("@{int('  +1,000 ')}", "1000", f"{SIM}: ExecConvertToIntTest"),
    Case("@{int('1.0')}", "1", f"{SIM}: ExecConvertToIntTest"),
    Case("@int('  200- ')", Fails("'int'"), f"{SIM}: ExecInvalidConvertToIntTest"),
    Case("@{float('  200- ')}", "-200", f"{SIM}: ExecConvertToFloatTest"),
    Case("@{float('nan')}", "NaN", f"{SIM}: ExecConvertToFloatTest"),
    Case("@float('Infinity')", Fails("'float'"), f"{SIM}: ExecInvalidConvertToFloatTest"),
    Case("@{decimal('  +1,000 ')}", "1000", f"{SIM}: ExecConvertToDecimalTest"),
]

CASES += [
    Case("@coalesce('hi', int('x'))", "hi", f"{SIM}: coalesce short-circuiting"),
    Case("@coalesce(null, int('x'))", Fails("'int' could not parse"), f"{SIM}: coalesce short-circuiting"),
    Case("@coalesce(null, null, null, null, null, null, null, 'hi', null)", "hi", f"{SIM}: coalesce"),
    Case("@add(9223372036854775807, 1)", Fails("'add' overflowed"), f"{SIM}: ExecMathOutOfRangeTest"),
    Case("@mul(4294967295, 4294967295)", Fails("'mul' overflowed"), f"{SIM}: ExecMathOutOfRangeTest"),
    Case("@{add(2147483647, 1)}", "2147483648", f"{SIM}: ExecMathInRangeTest"),
    Case("@{mul(1e308, 2)}", "Infinity", f"{SIM}: ExecMathInRangeTest"),
    Case("@{mul(4294967295, 4294967295.0)}", "1.8446744065119617E+19", f"{SIM}: ExecMathInRangeTest"),
    Case("@{mul(decimal('4294967295'), 4294967295)}", "18446744065119617025", f"{SIM}: ExecMathInRangeTest"),
    Case("@{mul(decimal('4294967295'), 4294967295.0)}", "18446744065119617025", f"{SIM}: ExecMathInRangeTest"),
    Case("@{9223372036854775809.5}", "9.223372036854776E+18", f"{SIM}: ExecInRangeTest"),
    Case("@{float('5e-324')}", "5E-324", f"{SIM}: ExecConvertInRangeTest"),
    Case("@{float('1.7e+308')}", "1.7E+308", f"{SIM}: ExecConvertInRangeTest"),
    Case("@{float('5e-350')}", "0", f"{SIM}: ExecConvertInRangeTest"),
    Case("@{float('1.7e+350')}", "Infinity", f"{SIM}: ExecConvertInRangeTest"),
    Case("@{decimal(100000.000009)}", "100000.000009", f"{SIM}: ExecConvertInRangeTest"),
    Case("@{decimal('10000000000.00000000001234')}", "10000000000.00000000001234", f"{SIM}: ExecConvertInRangeTest"),
    Case("@int('9223372036854775808')", Fails("'int'"), f"{SIM}: ExecConvertOutOfRangeTest"),
    Case("@int(1.5)", Fails("'int'"), f"{SIM}: ExecNoFractionalIntegersTest"),
    Case("@int('1.5')", Fails("'int'"), f"{SIM}: ExecNoFractionalIntegersTest"),
    Case("@div(0, 0)", Fails("'div'"), f"{SIM}: ExecMathOutOfRangeTest"),
]
