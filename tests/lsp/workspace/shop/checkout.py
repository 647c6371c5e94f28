"""Checkout: turns a cart into a receipt."""
from shop.models import Cart, Money

TAX_PERCENT = 20


def apply_tax(amount):
    return Money(amount.cents * (100 + TAX_PERCENT) // 100)


def checkout(cart):
    subtotal = cart.grand_total()
    return apply_tax(subtotal)
