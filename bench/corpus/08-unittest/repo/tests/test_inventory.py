import unittest
from inventory import inventory_step_22


class StockTest(unittest.TestCase):
    def test_lookup(self):
        self.assertEqual(inventory_step_22({'ab-1': 3}, 'ab-1'), 3)
