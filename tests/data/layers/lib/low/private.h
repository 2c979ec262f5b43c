// Private to low/.
